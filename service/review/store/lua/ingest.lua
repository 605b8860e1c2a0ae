--[[
  Creates a review item once (SET NX: a submission is stored once for the whole retention), indexes it as pending (by
  time and by confidence) and adds it to the search postings of its words.

  KEYS[1]     item key
  KEYS[2..5]  pending indexes by receivedAt: all, by form, by status, by form and status
  KEYS[6]     the account's set of form ids
  KEYS[7..10] pending indexes by confidence, in the order of KEYS[2..5]
  KEYS[11..]  the search postings of the item's words
  ARGV[1]     the item (JSON)
  ARGV[2]     score: receivedAt in ms
  ARGV[3]     expiry: receivedAt + retention, in ms
  ARGV[4]     submissionId
  ARGV[5]     formId
  ARGV[6]     now, in ms
  ARGV[7]     the model's confidence

  Returns 1 stored, 0 duplicate, -1 already past retention.
]]
if tonumber(ARGV[3]) <= tonumber(ARGV[6]) then return -1 end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[3]) then return 0 end
for i = 2, 5 do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[4]) end
redis.call('SADD', KEYS[6], ARGV[5])
for i = 7, 10 do redis.call('ZADD', KEYS[i], ARGV[7], ARGV[4]) end
local expiry = tonumber(ARGV[3])
for i = 11, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[4])
  -- A posting list lives as long as the newest item in it.
  local t = redis.call('PEXPIRETIME', KEYS[i])
  if t < expiry then redis.call('PEXPIREAT', KEYS[i], expiry) end
end
return 1
