--[[
  Takes back one item's label, named by the labelId (or labelledAt) the moderator saw in the history: only while it
  is still the item's label. The label it replaced comes back (with its moderator, time and export state), or, for a
  first label, the item goes back to pending. The undone label is recorded as withdrawn (lib/withdraw-label.lua).

  KEYS[1]    label key
  KEYS[2]    labelled index
  KEYS[3]    unexported index
  KEYS[4..7] pending indexes: all, by status, by form, by form and status
  KEYS[8]    item key
  KEYS[9]    the item's label history
  KEYS[10]   withdrawals index (scored by ARGV[5])
  KEYS[11..14] pending indexes by confidence
  ARGV[1]    submissionId
  ARGV[2]    pending score: receivedAt in ms
  ARGV[3]    the labelId (or, for a label without one, the labelledAt) the moderator saw
  ARGV[4]    expiry: receivedAt + retention, in ms
  ARGV[5]    now, in ms
  ARGV[6]    the model's confidence (score in the confidence indexes)
  ARGV[7]    '1' for a member of a pending item's group (near-groups.ts): back in the group, not in the pending indexes

  Returns {1} back to pending, {2} earlier label restored, {-1, moderator} the label is another one now (given by
  that moderator), {-2} item expired, {-3} no label.
]]
if redis.call('EXISTS', KEYS[8]) == 0 then return {-2} end
local current = redis.call('GET', KEYS[1])
if not current then return {-3} end
local label = cjson.decode(current)
if label.labelId ~= ARGV[3] and label.labelledAt ~= ARGV[3] then return {-1, label.moderatorId} end
if withdrawLabel(KEYS[1], KEYS[2], KEYS[3], KEYS[9], KEYS[10], ARGV[1], label, ARGV[5], ARGV[4]) then return {2} end
if ARGV[7] == '1' then return {1} end
backToPending(4, 11, ARGV[2], ARGV[6], ARGV[1])
return {1}
