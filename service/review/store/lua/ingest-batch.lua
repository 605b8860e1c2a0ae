--[[
  Ingests a batch of queued submissions of one account in one call: for each, near-ingest.lua's grouping (when the
  submission has a near print), then, unless it was grouped or is already stored, ingest.lua. scripts.ts puts the two
  files' bodies above this one as the functions nearIngest(KEYS, ARGV) and ingest(KEYS, ARGV), so each submission gets
  exactly what the two calls did, one after the other, and each keeps its own bounds (leaders, members, pending
  evictions per submission). The batch's length is bounded by the caller (items.ts INGEST_BATCH).

  KEYS     every key the batch's submissions name, each once (the account's indexes are shared by all of them)
  ARGV, per submission, in order:
    1      near-ingest.lua's 8 keys as indexes into KEYS, space-separated ('' when not grouped at all)
    2      ingest.lua's 12 keys as indexes into KEYS, space-separated
    3      the item (JSON): near-ingest.lua's ARGV[3] and ingest.lua's ARGV[1], sent once
    4      n: how many of near-ingest.lua's arguments follow (0: no grouping step)
    5..    near-ingest.lua's ARGV without ARGV[3] (n entries)
    then   ingest.lua's ARGV[2..13] (12 entries)

  Returns per submission three numbers: near-ingest.lua's code (1 grouped, 2 already stored, 0 not grouped), ingest.lua's
  code (1 stored, 2 merged, 0 duplicate, -1 past retention; -2 when it did not run) and how many items it evicted.
]]
local function keysOf(list)
  local t = {}
  for i in string.gmatch(list, '%d+') do t[#t + 1] = KEYS[tonumber(i)] end
  return t
end

local out = {}
local i = 1
while i <= #ARGV do
  local nearKeys, ingestKeys, item, n = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3])
  i = i + 4
  local near = 0
  if n > 0 then
    local args = { unpack(ARGV, i, i + n - 1) }
    table.insert(args, 3, item)
    near = nearIngest(keysOf(nearKeys), args)[1]
  end
  i = i + n
  local code, evicted = -2, 0
  if near == 0 then
    local r = ingest(keysOf(ingestKeys), { item, unpack(ARGV, i, i + 11) })
    code, evicted = r[1], r[2]
  end
  i = i + 12
  out[#out + 1] = near
  out[#out + 1] = code
  out[#out + 1] = evicted
end
return out
