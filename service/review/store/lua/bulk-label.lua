--[[
  Labels many pending items in one call (a moderator's bulk action), each item atomically as label.lua would label a
  pending one. An item labelled meanwhile (by anyone) or gone is left as it is and not counted. The labels go into the
  batch, which the moderator's undo list names once, so one undo takes the whole action back.

  KEYS[1]    labelled index
  KEYS[2]    unexported index
  KEYS[3]    the moderator's undo list
  KEYS[4]    the batch (submissionIds this action labelled)
  KEYS[5..]  per item, 11 keys: item, label, the 4 pending indexes by time, the 4 by confidence, label history
  ARGV[1]    labelledAt in ms
  ARGV[2]    undo list and batch lifetime in ms
  ARGV[3]    the undo entry naming the batch ('' for a later call of the same action: already pushed)
  ARGV[4..]  per item, 3 entries: the label record (JSON), expiry (receivedAt + retention, ms), submissionId

  Returns the submissionIds labelled.
]]
local done = {}
local n = (#KEYS - 4) / 11
for j = 0, n - 1 do
  local k = 5 + j * 11
  local a = 4 + j * 3
  local id = ARGV[a + 2]
  if redis.call('EXISTS', KEYS[k]) == 1 and redis.call('EXISTS', KEYS[k + 1]) == 0 then
    redis.call('SET', KEYS[k + 1], ARGV[a], 'PXAT', ARGV[a + 1])
    for i = k + 2, k + 9 do redis.call('ZREM', KEYS[i], id) end
    redis.call('DEL', KEYS[k + 10])
    redis.call('ZADD', KEYS[1], ARGV[1], id)
    redis.call('ZADD', KEYS[2], ARGV[1], id)
    redis.call('RPUSH', KEYS[4], id)
    done[#done + 1] = id
  end
end
if #done > 0 then redis.call('PEXPIRE', KEYS[4], ARGV[2]) end
if ARGV[3] ~= '' and redis.call('EXISTS', KEYS[4]) == 1 then
  redis.call('LPUSH', KEYS[3], ARGV[3])
  redis.call('LTRIM', KEYS[3], 0, 99)
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
end
return done
