--[[
  Ingests a batch of queued submissions of one account in one call: for each, near-ingest.lua's grouping (when the
  submission has a near print), then, unless it was grouped or is already stored, ingest.lua. scripts.ts puts the two
  files' bodies above this one as the functions nearIngest(KEYS, ARGV) and ingest(KEYS, ARGV), so each submission gets
  exactly what the two calls did, one after the other, and each keeps its own bounds (leaders, members, pending
  evictions per submission). The batch's length is bounded by the caller (items.ts INGEST_BATCH).

  At the account's caps (pending items at ARGV[2] and grouped near-duplicates at ARGV[3]: nothing new gets in without
  displacing an item) a submission queued only for being spam is shed when the model is at least as sure of it as of
  every pending spam verdict (the bar; or when none is pending): ingest.lua evicts the surest first, so it would be the
  first to go. It is not stored, grouped or merged, only counted (`<base>:shed`), and the caller keeps it for look-up.

  KEYS     every key the batch's submissions name, each once (the account's indexes are shared by all of them)
  ARGV[1]  the account's key base
  ARGV[2]  most pending items it keeps (REVIEW_MAX_PENDING; 0: no cap)
  ARGV[3]  most grouped near-duplicates it keeps (REVIEW_NEAR_MEMBERS_MAX; 0: no grouping)
  then, per submission, in order:
    1      near-ingest.lua's 8 keys as indexes into KEYS, space-separated ('' when not grouped at all)
    2      ingest.lua's 12 keys as indexes into KEYS, space-separated
    3      the item (JSON): near-ingest.lua's ARGV[3] and ingest.lua's ARGV[1], sent once
    4      its confidence when it may be shed at the caps (queued only for being spam), else ''
    5      n: how many of near-ingest.lua's arguments follow (0: no grouping step)
    6..    near-ingest.lua's ARGV without ARGV[3] (n entries)
    then   ingest.lua's ARGV[2..13] (12 entries)

  Returns per submission three numbers: near-ingest.lua's code (1 grouped, 2 already stored, 0 not grouped; -3 shed),
  ingest.lua's code (1 stored, 2 merged, 0 duplicate, -1 past retention; -2 when it did not run) and how many items it
  evicted; then the account's state after the batch, so the caller can shed without a call: 1 when it is at its caps,
  else 0, the bar as a string ('' when no spam verdict is pending), and 1 when its grouped near-duplicates are at their
  cap (else 0): no submission is grouped then, so the caller may leave the grouping step out for a while.
]]
local function keysOf(list)
  local t = {}
  for i in string.gmatch(list, '%d+') do t[#t + 1] = KEYS[tonumber(i)] end
  return t
end

local base, maxPending, maxMembers = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local spamByConfidence = base .. ':pending-conf:status:spam'
local function membersFull()
  return maxMembers > 0 and redis.call('ZCARD', base .. ':near:members') >= maxMembers
end
local function atCaps()
  return maxPending > 0 and redis.call('ZCARD', base .. ':pending') >= maxPending and (maxMembers <= 0 or membersFull())
end
local function bar()
  return redis.call('ZRANGE', spamByConfidence, -1, -1, 'WITHSCORES')[2]
end

local out = {}
local shed = 0
local i = 4
while i <= #ARGV do
  local nearKeys, ingestKeys, item, shedAt, n = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], tonumber(ARGV[i + 4])
  i = i + 5
  local near, code, evicted = 0, -2, 0
  if shedAt ~= '' and atCaps() then
    local b = bar()
    -- One already stored (a retried batch, a spool replay) is a duplicate as before, not shed.
    local stored = redis.call('EXISTS', KEYS[tonumber(string.match(ingestKeys, '%d+'))]) == 1
    if not stored and (b == nil or tonumber(shedAt) >= tonumber(b)) then near = -3 end
  end
  if near == -3 then
    shed = shed + 1
  elseif n > 0 then
    local args = { unpack(ARGV, i, i + n - 1) }
    table.insert(args, 3, item)
    near = nearIngest(keysOf(nearKeys), args)[1]
  end
  i = i + n
  if near == 0 then
    local r = ingest(keysOf(ingestKeys), { item, unpack(ARGV, i, i + 11) })
    code, evicted = r[1], r[2]
  end
  i = i + 12
  out[#out + 1] = near
  out[#out + 1] = code
  out[#out + 1] = evicted
end
if shed > 0 then redis.call('INCRBY', base .. ':shed', shed) end
out[#out + 1] = atCaps() and 1 or 0
out[#out + 1] = bar() or ''
out[#out + 1] = membersFull() and 1 or 0
return out
