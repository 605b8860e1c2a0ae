--[[
  Creates a review item once (SET NX: a submission is stored once for the whole retention) and indexes it as pending.

  KEYS[1]    item key
  KEYS[2..5] pending indexes: all, by status, by form, by form and status
  KEYS[6]    the account's set of form ids
  ARGV[1]    the item (JSON)
  ARGV[2]    score: receivedAt in ms
  ARGV[3]    expiry: receivedAt + retention, in ms
  ARGV[4]    submissionId
  ARGV[5]    formId
  ARGV[6]    now, in ms

  Returns 1 stored, 0 duplicate, -1 already past retention.
]]
if tonumber(ARGV[3]) <= tonumber(ARGV[6]) then return -1 end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[3]) then return 0 end
for i = 2, 5 do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[4]) end
redis.call('SADD', KEYS[6], ARGV[5])
return 1
