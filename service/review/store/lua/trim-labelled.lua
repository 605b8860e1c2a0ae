--[[
  Keeps an account's labelled items at most ARGV[1], dropping the oldest labelled ones whose label was exported (its
  line is in data/labels): the item, its label, the labels it replaced, its campaign and its search line. A label not
  yet exported is never dropped: those past the cap stay until an export writes them, and are counted.

  KEYS[1]  labelled index (by labelledAt)
  KEYS[2]  unexported index
  KEYS[3]  the account's search hash
  ARGV[1]  most labelled items kept
  ARGV[2]  the account's key base

  Returns {dropped, kept over the cap because not exported yet}.
]]
local base = ARGV[2]
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
if over <= 0 then return { 0, 0 } end
local dropped, start = 0, 0
while dropped < over do
  local ids = redis.call('ZRANGE', KEYS[1], start, start + 499)
  if #ids == 0 then break end
  local skipped = 0
  for _, id in ipairs(ids) do
    if dropped >= over then break end
    if redis.call('ZSCORE', KEYS[2], id) then
      skipped = skipped + 1
    else
      redis.call('DEL', base .. ':item:' .. id, base .. ':label:' .. id, base .. ':label-history:' .. id,
        base .. ':campaign:' .. id, base .. ':campaign:' .. id .. ':more')
      redis.call('HDEL', KEYS[3], id)
      redis.call('ZREM', KEYS[1], id)
      dropped = dropped + 1
    end
  end
  -- Removed entries shift the ranks: the next window starts after the ones left in place.
  start = start + skipped
end
return { dropped, over - dropped }
