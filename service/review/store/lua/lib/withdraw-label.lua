--[[
  Prepended by scripts.ts to undo.lua, undo-label.lua and bulk-undo.lua: the one way a label is taken back.

  withdrawLabel records `label` (the item's current label, decoded) as withdrawn, so the next export can take back its
  line: exported means acknowledged by an export (no longer in unexported); a label still unexported is recorded too,
  since an export may have written its line and not yet acknowledged it. Then the label it replaced comes back from
  the item's history (with its moderator, time and export state) and it returns true; for a first label the label
  goes and it returns false (the caller puts the item back to pending, unless it is a group member).

  backToPending adds the item to the 4 pending indexes by time (KEYS[timeFirst..+3], scored by receivedAt) and the 4
  by confidence (KEYS[confFirst..+3]).
]]
local function withdrawLabel(labelKey, labelledKey, unexportedKey, historyKey, withdrawalsKey, id, label, now, expiry)
  local exported = redis.call('ZSCORE', unexportedKey, id) == false
  redis.call('ZADD', withdrawalsKey, now, cjson.encode({ submissionId = id, labelId = label.labelId, withdrawn = label.labelledAt, exported = exported }))
  local previous = redis.call('LPOP', historyKey)
  if previous then
    local p = cjson.decode(previous)
    redis.call('SET', labelKey, p.label, 'PXAT', expiry)
    redis.call('ZADD', labelledKey, p.at, id)
    if p.unexported then redis.call('ZADD', unexportedKey, p.at, id) else redis.call('ZREM', unexportedKey, id) end
    return true
  end
  redis.call('DEL', labelKey)
  redis.call('ZREM', labelledKey, id)
  redis.call('ZREM', unexportedKey, id)
  return false
end

local function backToPending(timeFirst, confFirst, receivedAt, confidence, id)
  for i = timeFirst, timeFirst + 3 do redis.call('ZADD', KEYS[i], receivedAt, id) end
  for i = confFirst, confFirst + 3 do redis.call('ZADD', KEYS[i], confidence, id) end
end
