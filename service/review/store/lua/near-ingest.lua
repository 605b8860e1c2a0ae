--[[
  Groups a submission with a similar pending one (text/near-print.ts: the same template, names, numbers and links
  varied), before ingest.lua: when one of its bands leads to a group leader that is pending (or on its way: registered
  within ARGV[14] ms, its ingest not yet run) to the same account, first seen within the campaign window, and their
  signatures share at least ARGV[13] values, the submission is stored as an item of that group: its item and search
  line as any item's, but in no pending index (the group's one row is its leader), its id in the group. Otherwise it
  is registered as a leader (its bands lead to it) and ingest.lua stores it as usual.

  Bounds (docs/operations.md, "Review floods"): leaders ≤ ARGV[10] per account (the oldest drops out of the band
  index: BANDS fields each), and leaders older than the window drop out too; grouped members ≤ ARGV[11] per account
  (past it a submission is not grouped: it becomes a row of its own, which REVIEW_MAX_PENDING bounds).

  KEYS[1]  band index: a hash `<band>:<hash>` → leader submissionId
  KEYS[2]  leaders by first seen (ms)
  KEYS[3]  leader signatures: a hash leader → `<signature>|<band> <band> …`
  KEYS[4]  grouped members of the account by receivedAt (ms)
  KEYS[5]  member → leader (a hash): what undo reads to keep a member out of the pending list
  KEYS[6]  the submission's item key
  KEYS[7]  the account's search hash
  KEYS[8]  the submission's exact fingerprint key (ingest.lua's campaign)
  ARGV[1]  the account's key base
  ARGV[2]  submissionId
  ARGV[3]  the item (JSON)
  ARGV[4]  receivedAt, ms
  ARGV[5]  expiry (receivedAt + retention), ms
  ARGV[6]  now, ms
  ARGV[7]  campaign window, ms
  ARGV[8]  the submission's signature
  ARGV[9]  its search line
  ARGV[10] most leaders an account keeps in the band index (REVIEW_NEAR_GROUPS_MAX)
  ARGV[11] most grouped members an account keeps (REVIEW_NEAR_MEMBERS_MAX)
  ARGV[12] retention, ms
  ARGV[13] signature values two members must share (near-print.ts MIN_SHARED)
  ARGV[14] how long a registered leader counts as on its way to pending, ms
  ARGV[15..] its bands

  Returns {1, leader} grouped, {0} not grouped (ingest.lua stores it: a leader, an exact duplicate, or alone),
  {2} already stored.
]]
local base = ARGV[1]
local id = ARGV[2]
local now = tonumber(ARGV[6])
local window = tonumber(ARGV[7])
if tonumber(ARGV[5]) <= now or window <= 0 then return {0} end

local function unlead(leader)
  local sig = redis.call('HGET', KEYS[3], leader)
  if sig then
    for band in string.gmatch(string.sub(sig, string.find(sig, '|', 1, true) + 1), '%S+') do
      if redis.call('HGET', KEYS[1], band) == leader then redis.call('HDEL', KEYS[1], band) end
    end
  end
  redis.call('HDEL', KEYS[3], leader)
  redis.call('ZREM', KEYS[2], leader)
end

-- Leaders past the window, and members past retention, go a few per call (each call's work stays bounded).
for _, leader in ipairs(redis.call('ZRANGE', KEYS[2], '-inf', now - window, 'BYSCORE', 'LIMIT', 0, 16)) do unlead(leader) end
for _, member in ipairs(redis.call('ZRANGE', KEYS[4], '-inf', now - tonumber(ARGV[12]), 'BYSCORE', 'LIMIT', 0, 16)) do
  redis.call('HDEL', KEYS[5], member)
  redis.call('ZREM', KEYS[4], member)
end

-- An identical submission is ingest.lua's: it merges into that item's campaign.
local exact = redis.call('GET', KEYS[8])
if exact and exact ~= id and redis.call('ZSCORE', base .. ':pending', exact) then return {0} end

local signature = ARGV[8]
local tried = {}
for i = 15, #ARGV do
  local leader = redis.call('HGET', KEYS[1], ARGV[i])
  if leader and leader ~= id and not tried[leader] then
    tried[leader] = true
    local since = redis.call('ZSCORE', KEYS[2], leader)
    local pending = redis.call('ZSCORE', base .. ':pending', leader)
    local coming = since and not pending and tonumber(since) > now - tonumber(ARGV[14])
      and redis.call('EXISTS', base .. ':item:' .. leader) == 0
    local sig = since and (pending or coming) and redis.call('HGET', KEYS[3], leader)
    if sig then
      local shared = 0
      for j = 1, #signature, 8 do
        if string.sub(sig, j, j + 7) == string.sub(signature, j, j + 7) then shared = shared + 1 end
      end
      if shared >= tonumber(ARGV[13]) then
        if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[11]) then return {0} end
        if not redis.call('SET', KEYS[6], ARGV[3], 'NX', 'PXAT', ARGV[5]) then return {2} end
        local group = base .. ':near:group:' .. leader
        redis.call('ZADD', group, ARGV[4], id)
        redis.call('PEXPIREAT', group, ARGV[5])
        redis.call('HSET', KEYS[5], id, leader)
        redis.call('ZADD', KEYS[4], ARGV[4], id)
        for k = 4, 5 do
          if redis.call('PEXPIRETIME', KEYS[k]) < tonumber(ARGV[5]) then redis.call('PEXPIREAT', KEYS[k], ARGV[5]) end
        end
        redis.call('HSET', KEYS[7], id, ARGV[9])
        if redis.call('PEXPIRETIME', KEYS[7]) < tonumber(ARGV[5]) then redis.call('PEXPIREAT', KEYS[7], ARGV[5]) end
        return {1, leader}
      end
    end
  end
end

-- A leader: its bands lead to it (the newest leader of a band wins it), within the cap on leaders.
local bands = {}
for i = 15, #ARGV do
  redis.call('HSET', KEYS[1], ARGV[i], id)
  bands[#bands + 1] = ARGV[i]
end
redis.call('HSET', KEYS[3], id, signature .. '|' .. table.concat(bands, ' '))
redis.call('ZADD', KEYS[2], now, id)
-- Nothing leads anywhere past the window: the band index goes with an account that stops sending.
for k = 1, 3 do redis.call('PEXPIRE', KEYS[k], window) end
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[10])
if over > 0 then
  for _, leader in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do unlead(leader) end
end
return {0}
