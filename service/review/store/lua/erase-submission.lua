--[[
  Erases one submission of one account: its item, label, the labels its relabels replaced, its look-up verdict, its kept
  fields, and its entries in the indexes, the search postings and the withdrawals index. The item key is left as a tombstone until the item would have
  expired, so a spool replay or a re-added job of the same submission is still refused as a duplicate (SET NX)
  instead of bringing it back.

  KEYS[1]          item key
  KEYS[2]          look-up verdict key
  KEYS[3]          label key
  KEYS[4]          label history key
  KEYS[5]          kept-fields key
  KEYS[6..#KEYS-1] every index and search posting list whose members are submissionIds
  KEYS[#KEYS]      withdrawals index
  ARGV[1]          submissionId
  ARGV[2]          the tombstone value
  ARGV[3..]        the submission's members of the withdrawals index

  Returns 1.
]]
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl) end
for i = 6, #KEYS - 1 do redis.call('ZREM', KEYS[i], ARGV[1]) end
for i = 3, #ARGV do redis.call('ZREM', KEYS[#KEYS], ARGV[i]) end
return 1
