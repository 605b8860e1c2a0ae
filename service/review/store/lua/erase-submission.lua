--[[
  Erases one submission of one account: its item, label, the labels its relabels replaced, its campaign, its look-up
  verdict, its kept fields, its search line, and its entries in the indexes and the withdrawals index. The item key is
  left as a tombstone until the item would have expired, so a spool replay or a re-added job of the same submission is
  still refused as a duplicate (SET NX) instead of bringing it back.

  KEYS[1]          item key
  KEYS[2]          label key
  KEYS[3]          label history key
  KEYS[4]          campaign key
  KEYS[5]          the campaign's count past its cap
  KEYS[6]          withdrawals index
  KEYS[7..9]       hashes holding it by submissionId: look-up verdicts, kept fields, search lines
  KEYS[10..]       every index whose members are submissionIds
  ARGV[1]          submissionId
  ARGV[2]          the tombstone value
  ARGV[3..]        the submission's members of the withdrawals index

  Returns 1.
]]
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl) end
for i = 7, 9 do redis.call('HDEL', KEYS[i], ARGV[1]) end
for i = 10, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
for i = 3, #ARGV do redis.call('ZREM', KEYS[6], ARGV[i]) end
return 1
