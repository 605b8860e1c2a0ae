--[[
  One step of the retention sweep over an account's search hash: drops the lines of queued items that are gone (expired
  or erased) or past retention, and of kept fields that are gone or past their window.

  KEYS[1]  the account's search hash
  KEYS[2]  kept fields (hash)
  ARGV[1]  cursor
  ARGV[2]  lines to look at (HSCAN COUNT)
  ARGV[3]  items received before this (ms) are past retention
  ARGV[4]  kept fields received before this (ms) are past their window
  ARGV[5]  the account's key base (`<base>:item:<id>`)

  Returns {next cursor, lines dropped}.
]]
local r = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
local kv = r[2]
local dropped = 0
for i = 1, #kv, 2 do
  local id, line = kv[i], kv[i + 1]
  local colon = string.find(line, ':', 1, true)
  local at = colon and tonumber(string.sub(line, 2, colon - 1)) or 0
  local gone
  if string.sub(line, 1, 1) == 'k' then
    gone = at < tonumber(ARGV[4]) or redis.call('HEXISTS', KEYS[2], id) == 0
  else
    gone = at < tonumber(ARGV[3]) or redis.call('EXISTS', ARGV[5] .. ':item:' .. id) == 0
  end
  if gone then
    redis.call('HDEL', KEYS[1], id)
    dropped = dropped + 1
  end
end
return { r[1], dropped }
