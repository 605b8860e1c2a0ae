--[[
  Stores a label (a relabel replaces it, keeping the replaced one for undo), moves the item from pending to labelled,
  and remembers this label (not just the item) for undo, so each of a moderator's labels is undone in turn.
  A labelId tells apart two labels made in the same millisecond, which a labelledAt cannot.

  KEYS[1]    item key
  KEYS[2]    label key
  KEYS[3..6] pending indexes: all, by status, by form, by form and status
  KEYS[7]    labelled index
  KEYS[8]    unexported index
  KEYS[9]    the moderator's undo list
  KEYS[10]   the item's label history (labels its relabels replaced)
  KEYS[11..14] pending indexes by confidence
  KEYS[15]   the account's search hash
  KEYS[16]   kept fields (hash), KEYS[17] their index by receivedAt
  ARGV[1]    the label record (JSON)
  ARGV[2]    labelledAt in ms
  ARGV[3]    expiry: receivedAt + retention, in ms
  ARGV[4]    submissionId
  ARGV[5]    undo list lifetime in ms
  ARGV[6]    undo entry: "<submissionId> <labelledAt>"
  ARGV[7]    what the moderator saw: '' (no check), '-' (no label yet), or the label on screen by its labelId (by its
             labelledAt for a label without one, or from a page loaded before labels had ids)
  ARGV[8]    '' for a queued item; for a submission that was not queued (a miss reported by a moderator), the item
             (JSON, its kept or pasted fields) to store first, so it is labelled and exported like any other

  Returns 1 labelled, 0 no such item, {-1, current label or ''} when the item's label is no longer what the
  moderator saw (nothing changes then).
]]
if ARGV[8] ~= '' and redis.call('SET', KEYS[1], ARGV[8], 'NX', 'PXAT', ARGV[3]) then
  -- The miss is an item now: its search line says so, and it no longer counts against the kept-fields window.
  local line = redis.call('HGET', KEYS[15], ARGV[4])
  if line and string.sub(line, 1, 1) == 'k' then redis.call('HSET', KEYS[15], ARGV[4], 'i' .. string.sub(line, 2)) end
  redis.call('HDEL', KEYS[16], ARGV[4])
  redis.call('ZREM', KEYS[17], ARGV[4])
  if redis.call('PEXPIRETIME', KEYS[15]) < tonumber(ARGV[3]) then redis.call('PEXPIREAT', KEYS[15], ARGV[3]) end
end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local previous = redis.call('GET', KEYS[2])
if ARGV[7] ~= '' then
  local same = ARGV[7] == '-'
  if previous then
    local p = cjson.decode(previous)
    same = ARGV[7] == p.labelId or ARGV[7] == p.labelledAt
  end
  if not same then return {-1, previous or ''} end
end
if previous then
  local at = redis.call('ZSCORE', KEYS[7], ARGV[4]) or ARGV[2]
  local unexported = redis.call('ZSCORE', KEYS[8], ARGV[4]) ~= false
  redis.call('LPUSH', KEYS[10], cjson.encode({ label = previous, at = at, unexported = unexported }))
  redis.call('LTRIM', KEYS[10], 0, 99)
  redis.call('PEXPIREAT', KEYS[10], ARGV[3])
else
  redis.call('DEL', KEYS[10])
end
redis.call('SET', KEYS[2], ARGV[1], 'PXAT', ARGV[3])
for i = 3, 6 do redis.call('ZREM', KEYS[i], ARGV[4]) end
for i = 11, 14 do redis.call('ZREM', KEYS[i], ARGV[4]) end
redis.call('ZADD', KEYS[7], ARGV[2], ARGV[4])
redis.call('ZADD', KEYS[8], ARGV[2], ARGV[4])
redis.call('LPUSH', KEYS[9], ARGV[6])
redis.call('LTRIM', KEYS[9], 0, 99)
redis.call('PEXPIRE', KEYS[9], ARGV[5])
return 1
