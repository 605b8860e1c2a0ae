--[[
  One step of a search: scans up to ARGV[2] lines of the account's search hash from cursor ARGV[1] (HSCAN) and returns
  the submissions whose line holds every query word, within the time range. A search is these steps until the cursor
  comes back to 0; each step is short, so other clients are served between them. The hash holds one line per queued
  item and per kept submission (both capped per account), so a whole search costs what the caps allow.

  KEYS[1]  the account's search hash: submissionId → `<i|k><receivedAt ms>:<fingerprint>| word word … `
  ARGV[1]  cursor
  ARGV[2]  lines to scan (HSCAN COUNT)
  ARGV[3]  queued items received before this (ms) are past retention: skipped
  ARGV[4]  kept fields received before this (ms) are past their window: skipped
  ARGV[5]  received after this (ms): skipped
  ARGV[6..] the query's words, each between spaces (` word `): plain substring matches, no patterns

  Returns {next cursor, then per match: submissionId, kind, receivedAt ms}.
]]
local r = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
local out = { r[1] }
local kv = r[2]
local minItem, minKept, max = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
for i = 1, #kv, 2 do
  local line = kv[i + 1]
  local colon = string.find(line, ':', 1, true)
  local bar = string.find(line, '|', 1, true)
  local kind = string.sub(line, 1, 1)
  local at = colon and tonumber(string.sub(line, 2, colon - 1))
  if at and bar and at <= max and at >= (kind == 'k' and minKept or minItem) then
    local all = true
    for w = 6, #ARGV do
      if not string.find(line, ARGV[w], bar, true) then
        all = false
        break
      end
    end
    if all then
      out[#out + 1] = kv[i]
      out[#out + 1] = kind
      out[#out + 1] = tostring(at)
    end
  end
end
return out
