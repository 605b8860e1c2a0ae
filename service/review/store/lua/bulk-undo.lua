--[[
  Takes back a bulk label of this moderator (undo.lua for each of its items): each label that is still the item's label
  goes, the label it replaced comes back or the item goes back to pending, and the undone label is recorded as
  withdrawn for the next export. A label relabelled since is left as it is and counted.

  KEYS[1]    the moderator's undo list
  KEYS[2]    labelled index
  KEYS[3]    unexported index
  KEYS[4]    withdrawals index (scored by ARGV[4])
  KEYS[5]    the batch
  KEYS[6..]  per item, 11 keys: label, item, label history, the 4 pending indexes by time, the 4 by confidence
  ARGV[1]    the undo entry expected at the head of the list ('' for a later call of the same undo)
  ARGV[2]    moderatorId
  ARGV[3]    labelledAt of the batch's labels (ISO)
  ARGV[4]    now, in ms
  ARGV[5..]  per item, 5 entries: submissionId, pending score (receivedAt, ms), confidence, expiry (ms), and '1' for a
             member of a pending item's group (near-groups.ts: back in the group, not in the pending indexes)

  Returns {-1} when the entry is no longer at the head (raced), else {undone, relabelled since}.
]]
if ARGV[1] ~= '' then
  if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return {-1} end
  redis.call('LPOP', KEYS[1])
end
local undone, relabelled = 0, 0
local n = (#KEYS - 5) / 11
for j = 0, n - 1 do
  local k = 6 + j * 11
  local a = 5 + j * 5
  local id = ARGV[a]
  local current = redis.call('GET', KEYS[k])
  if redis.call('EXISTS', KEYS[k + 1]) == 0 then
    redis.call('DEL', KEYS[k], KEYS[k + 2])
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  elseif current then
    local label = cjson.decode(current)
    if label.moderatorId ~= ARGV[2] or label.labelledAt ~= ARGV[3] then
      relabelled = relabelled + 1
    else
      if not withdrawLabel(KEYS[k], KEYS[2], KEYS[3], KEYS[k + 2], KEYS[4], id, label, ARGV[4], ARGV[a + 3]) and ARGV[a + 4] ~= '1' then
        backToPending(k + 3, k + 7, ARGV[a + 1], ARGV[a + 2], id)
      end
      undone = undone + 1
    end
  end
end
return {undone, relabelled}
