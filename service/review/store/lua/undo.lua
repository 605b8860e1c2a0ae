--[[
  Takes back this moderator's newest label, only while it is still the item's label: the label it replaced comes
  back (with its moderator, time and export state), or, for a first label, the item goes back to pending.
  The undone label is recorded as withdrawn, so the next export can take back its line if one was written.
  exported: acknowledged by an export (no longer in unexported). A label still unexported is recorded too: an export
  may have written its line and not yet acknowledged it (or crashed in between), and only the files can tell; the
  export writes no line for it unless its label line is there.

  KEYS[1]    the moderator's undo list
  KEYS[2]    label key
  KEYS[3]    labelled index
  KEYS[4]    unexported index
  KEYS[5..8] pending indexes: all, by status, by form, by form and status
  KEYS[9]    item key
  KEYS[10]   the item's label history
  KEYS[11]   withdrawals index (scored by ARGV[7])
  KEYS[12..15] pending indexes by confidence
  ARGV[1]    the undo entry expected at the head of the list
  ARGV[2]    submissionId
  ARGV[3]    pending score: receivedAt in ms
  ARGV[4]    moderatorId
  ARGV[5]    labelledAt of the label to undo ('' for an entry without one)
  ARGV[6]    expiry: receivedAt + retention, in ms
  ARGV[7]    now, in ms
  ARGV[8]    the model's confidence (score in the confidence indexes)
  ARGV[9]    '1' for a member of a pending item's group (near-groups.ts): back in the group, not in the pending indexes

  Returns {1} back to pending, {2} earlier label restored, {-1, moderator} relabelled since by that moderator,
  {0} raced with another label of this moderator, {-2} item expired, {-3} label already gone.
]]
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return {0} end
redis.call('LPOP', KEYS[1])
if redis.call('EXISTS', KEYS[9]) == 0 then
  redis.call('DEL', KEYS[2], KEYS[10])
  redis.call('ZREM', KEYS[3], ARGV[2])
  redis.call('ZREM', KEYS[4], ARGV[2])
  return {-2}
end
local current = redis.call('GET', KEYS[2])
if not current then return {-3} end
local label = cjson.decode(current)
if label.moderatorId ~= ARGV[4] or (ARGV[5] ~= '' and label.labelledAt ~= ARGV[5]) then return {-1, label.moderatorId} end
local exported = redis.call('ZSCORE', KEYS[4], ARGV[2]) == false
redis.call('ZADD', KEYS[11], ARGV[7], cjson.encode({ submissionId = ARGV[2], labelId = label.labelId, withdrawn = label.labelledAt, exported = exported }))
local previous = redis.call('LPOP', KEYS[10])
if previous then
  local p = cjson.decode(previous)
  redis.call('SET', KEYS[2], p.label, 'PXAT', ARGV[6])
  redis.call('ZADD', KEYS[3], p.at, ARGV[2])
  if p.unexported then redis.call('ZADD', KEYS[4], p.at, ARGV[2]) else redis.call('ZREM', KEYS[4], ARGV[2]) end
  return {2}
end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[4], ARGV[2])
if ARGV[9] == '1' then return {1} end
for i = 5, 8 do redis.call('ZADD', KEYS[i], ARGV[3], ARGV[2]) end
for i = 12, 15 do redis.call('ZADD', KEYS[i], ARGV[8], ARGV[2]) end
return {1}
