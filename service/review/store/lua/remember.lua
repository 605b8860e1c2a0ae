--[[
  Keeps what the store holds of a submission that was not queued: its verdict (no fields) for the whole retention, for
  look-ups; and, within the keep-fields window, its fields with search postings, so a moderator can label a miss.
  Each posting list is trimmed to the window as it is written and lives as long as its newest entry.

  KEYS[1]    look-up verdict key
  KEYS[2]    kept-fields key
  KEYS[3..]  the kept search postings of the submission's words
  ARGV[1]    the verdict (JSON, no fields)
  ARGV[2]    its expiry: receivedAt + retention, in ms
  ARGV[3]    the submission with its fields (JSON), '' to keep none
  ARGV[4]    their expiry: receivedAt + keep-fields window, in ms
  ARGV[5]    score: receivedAt in ms
  ARGV[6]    postings older than this (ms) are past the window
  ARGV[7]    submissionId
  ARGV[8]    now, in ms

  Returns 1.
]]
local now = tonumber(ARGV[8])
if tonumber(ARGV[2]) > now then redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2], 'NX') end
if ARGV[3] == '' or tonumber(ARGV[4]) <= now then return 1 end
redis.call('SET', KEYS[2], ARGV[3], 'PXAT', ARGV[4], 'NX')
local expiry = tonumber(ARGV[4])
for i = 3, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[5], ARGV[7])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[6])
  local t = redis.call('PEXPIRETIME', KEYS[i])
  if t < expiry then redis.call('PEXPIREAT', KEYS[i], expiry) end
end
return 1
