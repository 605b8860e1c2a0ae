--[[
  Creates a review item once (SET NX: a submission is stored once for the whole retention), indexes it as pending (by
  time and by confidence) and adds it to the search postings of its words; or, when an identical submission (same
  fingerprint) to the account is still pending and was first seen within the campaign window, adds this submission's
  id to that item's campaign instead of making a new item.

  KEYS[1]      item key
  KEYS[2..5]   pending indexes by receivedAt: all, by status, by form, by form and status
  KEYS[6]      the account's set of form ids
  KEYS[7]      fingerprint key: the submissionId of the pending item it leads to, for the campaign window
  KEYS[8..11]  pending indexes by confidence, in the order of KEYS[2..5]
  KEYS[12..]   the search postings of the item's words
  ARGV[1]      the item (JSON)
  ARGV[2]      score: receivedAt in ms
  ARGV[3]      expiry: receivedAt + retention, in ms
  ARGV[4]      submissionId
  ARGV[5]      formId
  ARGV[6]      now, in ms
  ARGV[7]      campaign window, in ms (0: no merging)
  ARGV[8]      the account's key base: `<base>:item:<id>` and `<base>:campaign:<id>` (same hash tag, same slot)
  ARGV[9]      the model's confidence

  Returns 1 stored, 2 merged into a campaign, 0 duplicate, -1 already past retention.
]]
if tonumber(ARGV[3]) <= tonumber(ARGV[6]) then return -1 end
if tonumber(ARGV[7]) > 0 then
  local leader = redis.call('GET', KEYS[7])
  if leader and leader ~= ARGV[4] and redis.call('ZSCORE', KEYS[2], leader) then
    local campaign = ARGV[8] .. ':campaign:' .. leader
    if redis.call('SADD', campaign, ARGV[4]) == 0 then return 0 end
    -- The campaign lives as long as its item.
    local ttl = redis.call('PTTL', ARGV[8] .. ':item:' .. leader)
    if ttl > 0 then redis.call('PEXPIRE', campaign, ttl) end
    return 2
  end
end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[3]) then return 0 end
for i = 2, 5 do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[4]) end
redis.call('SADD', KEYS[6], ARGV[5])
for i = 8, 11 do redis.call('ZADD', KEYS[i], ARGV[9], ARGV[4]) end
local expiry = tonumber(ARGV[3])
for i = 12, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[4])
  -- A posting list lives as long as the newest item in it.
  local t = redis.call('PEXPIRETIME', KEYS[i])
  if t < expiry then redis.call('PEXPIREAT', KEYS[i], expiry) end
end
if tonumber(ARGV[7]) > 0 then redis.call('SET', KEYS[7], ARGV[4], 'PX', ARGV[7]) end
return 1
