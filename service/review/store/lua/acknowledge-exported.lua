--[[
  Forgets exported labels, unless relabelled meanwhile: then the score (labelledAt) changed, or, for a relabel in the
  same millisecond, the item's label is another one (its labelId).

  KEYS[1]     unexported index
  KEYS[1 + n] the n-th label's key
  ARGV        per label, three entries: submissionId, score (labelledAt in ms), labelId ('' for a label without one)

  Returns how many labels were acknowledged.
]]
local n = 0
for i = 1, #ARGV, 3 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  local same = score and tonumber(score) == tonumber(ARGV[i + 1])
  if same and ARGV[i + 2] ~= '' then
    local current = redis.call('GET', KEYS[1 + (i + 2) / 3])
    same = current and cjson.decode(current).labelId == ARGV[i + 2]
  end
  if same then
    redis.call('ZREM', KEYS[1], ARGV[i])
    n = n + 1
  end
end
return n
