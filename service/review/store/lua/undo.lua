--[[
  Takes back this moderator's newest label, only while it is still the item's label: the label it replaced comes
  back (with its moderator, time and export state), or, for a first label, the item goes back to pending.
  The undone label is recorded as withdrawn (lib/withdraw-label.lua); the export writes no withdrawal line for it
  unless its label line is there.

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
if withdrawLabel(KEYS[2], KEYS[3], KEYS[4], KEYS[10], KEYS[11], ARGV[2], label, ARGV[7], ARGV[6]) then return {2} end
if ARGV[9] == '1' then return {1} end
backToPending(5, 12, ARGV[3], ARGV[8], ARGV[2])
return {1}
