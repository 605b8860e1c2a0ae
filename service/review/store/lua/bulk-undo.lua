--[[
  Takes back a bulk label of this moderator (undo.lua for each of its items): each label that is still the item's label
  goes, the label it replaced comes back or the item goes back to pending, and the undone label is recorded as
  withdrawn for the next export. A label relabelled since is left as it is and counted.

  KEYS[1]    the moderator's undo list
  KEYS[2]    labelled index
  KEYS[3]    unexported index
  KEYS[4]    withdrawals index (scored by ARGV[4])
  KEYS[5]    the batch
  KEYS[6..]  per item, 11 keys: label, item, label history, the 4 pending indexes by time, the 4 by confidence
  ARGV[1]    the undo entry expected at the head of the list ('' for a later call of the same undo)
  ARGV[2]    moderatorId
  ARGV[3]    labelledAt of the batch's labels (ISO)
  ARGV[4]    now, in ms
  ARGV[5..]  per item, 5 entries: submissionId, pending score (receivedAt, ms), confidence, expiry (ms), and '1' for a
             member of a pending item's group (near-groups.ts: back in the group, not in the pending indexes)

  Returns {-1} when the entry is no longer at the head (raced), else {undone, relabelled since}.
]]
if ARGV[1] ~= '' then
  if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return {-1} end
  redis.call('LPOP', KEYS[1])
end
local undone, relabelled = 0, 0
local n = (#KEYS - 5) / 11
for j = 0, n - 1 do
  local k = 6 + j * 11
  local a = 5 + j * 5
  local id = ARGV[a]
  local current = redis.call('GET', KEYS[k])
  if redis.call('EXISTS', KEYS[k + 1]) == 0 then
    redis.call('DEL', KEYS[k], KEYS[k + 2])
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  elseif current then
    local label = cjson.decode(current)
    if label.moderatorId ~= ARGV[2] or label.labelledAt ~= ARGV[3] then
      relabelled = relabelled + 1
    else
      local exported = redis.call('ZSCORE', KEYS[3], id) == false
      redis.call('ZADD', KEYS[4], ARGV[4], cjson.encode({ submissionId = id, labelId = label.labelId, withdrawn = label.labelledAt, exported = exported }))
      local previous = redis.call('LPOP', KEYS[k + 2])
      if previous then
        local p = cjson.decode(previous)
        redis.call('SET', KEYS[k], p.label, 'PXAT', ARGV[a + 3])
        redis.call('ZADD', KEYS[2], p.at, id)
        if p.unexported then redis.call('ZADD', KEYS[3], p.at, id) else redis.call('ZREM', KEYS[3], id) end
      else
        redis.call('DEL', KEYS[k])
        redis.call('ZREM', KEYS[2], id)
        redis.call('ZREM', KEYS[3], id)
        if ARGV[a + 4] ~= '1' then
          for i = k + 3, k + 6 do redis.call('ZADD', KEYS[i], ARGV[a + 1], id) end
          for i = k + 7, k + 10 do redis.call('ZADD', KEYS[i], ARGV[a + 2], id) end
        end
      end
      undone = undone + 1
    end
  end
end
return {undone, relabelled}
