--[[
  Keeps what the store holds of submissions that were not queued (a batch of them, one account): each one's verdict
  (no fields) for look-ups, and, within the keep-fields window, its fields and its search line, so a moderator can find
  and label a miss. Then trims both to their bounds, deleting what falls out: the newest ARGV[3] verdicts within
  retention, the newest ARGV[5] kept fields within the keep-fields window, at most ARGV[6] of each per call (more than
  a call adds, so the bounds are reached over the next calls after a cap is lowered, while no call holds Redis long).
  Called with no submission, it only trims (the retention sweep, which calls again while a call drops ARGV[6]).

  KEYS[1]  look-up verdicts: hash submissionId → verdict JSON
  KEYS[2]  the same ids by receivedAt (ms)
  KEYS[3]  kept fields: hash submissionId → submission JSON
  KEYS[4]  the same ids by receivedAt (ms)
  KEYS[5]  the account's search hash
  ARGV[1]  now, in ms
  ARGV[2]  retention, in ms
  ARGV[3]  most verdicts kept (0: none)
  ARGV[4]  keep-fields window, in ms
  ARGV[5]  most kept fields (0: none)
  ARGV[6]  most entries of each structure one call drops
  ARGV[7..] per submission, 5 entries: submissionId, receivedAt (ms), verdict JSON, submission JSON ('' to keep no
           fields), search line

  Returns {verdicts dropped, kept fields dropped}.
]]
local now = tonumber(ARGV[1])
local seenFrom, seenMax = now - tonumber(ARGV[2]), tonumber(ARGV[3])
local keptFrom, keptMax = now - tonumber(ARGV[4]), tonumber(ARGV[5])
local newestSeen, newestKept = 0, 0
local most = tonumber(ARGV[6])
for i = 7, #ARGV, 5 do
  local id, at = ARGV[i], tonumber(ARGV[i + 1])
  if seenMax > 0 and at > seenFrom then
    if redis.call('HSETNX', KEYS[1], id, ARGV[i + 2]) == 1 then redis.call('ZADD', KEYS[2], at, id) end
    if at > newestSeen then newestSeen = at end
  end
  if keptMax > 0 and ARGV[i + 3] ~= '' and at > keptFrom then
    if redis.call('HSETNX', KEYS[3], id, ARGV[i + 3]) == 1 then
      redis.call('ZADD', KEYS[4], at, id)
      redis.call('HSETNX', KEYS[5], id, ARGV[i + 4])
    end
    if at > newestKept then newestKept = at end
  end
end

-- Drops ids from an index and from the hashes that hold them, in chunks (unpack has a limit on its arguments).
local function drop(index, hashes, ids)
  for s = 1, #ids, 500 do
    local chunk = { unpack(ids, s, math.min(s + 499, #ids)) }
    redis.call('ZREM', index, unpack(chunk))
    for _, hash in ipairs(hashes) do redis.call('HDEL', hash, unpack(chunk)) end
  end
  return #ids
end

-- Past the window by age, then the oldest past the count; at most `most` in all.
local function trim(index, hashes, from, max)
  local n = drop(index, hashes, redis.call('ZRANGEBYSCORE', index, '-inf', '(' .. from, 'LIMIT', 0, most))
  local over = math.min(redis.call('ZCARD', index) - max, most - n)
  if over > 0 then n = n + drop(index, hashes, redis.call('ZRANGE', index, 0, over - 1)) end
  return n
end

local seenDropped = trim(KEYS[2], { KEYS[1] }, seenFrom, seenMax)
local keptDropped = trim(KEYS[4], { KEYS[3], KEYS[5] }, keptFrom, keptMax)

-- Each structure lives as long as its newest entry (nothing is left behind by an account that stops sending).
local function extend(keys, at)
  if at == 0 then return end
  for _, key in ipairs(keys) do
    if redis.call('PEXPIRETIME', key) < at then redis.call('PEXPIREAT', key, at) end
  end
end
extend({ KEYS[1], KEYS[2] }, newestSeen > 0 and newestSeen + tonumber(ARGV[2]) or 0)
extend({ KEYS[3], KEYS[4], KEYS[5] }, newestKept > 0 and newestKept + tonumber(ARGV[4]) or 0)
return { seenDropped, keptDropped }
