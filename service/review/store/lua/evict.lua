--[[
  Keeps an account's pending items at most ARGV[1]: removes the oldest pending spam verdicts first (the model was
  sure; least to learn from a moderator), then the oldest pending items of any verdict.

  KEYS[1]  pending index: all
  KEYS[2]  pending index: spam verdicts
  KEYS[3]  pending index: legitimate verdicts
  ARGV[1]  most pending items kept
  ARGV[2]  the account's key base: `<base>:item:<id>` and `<base>:campaign:<id>` (same hash tag, same slot)

  The by-form indexes are not touched here (their keys encode the form id); listing one drops ids whose item is gone.
  Returns how many items were removed.
]]
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
local evicted = 0
for _, source in ipairs({ KEYS[2], KEYS[1] }) do
  while over > 0 do
    local ids = redis.call('ZRANGE', source, 0, 0)
    if #ids == 0 then break end
    local id = ids[1]
    redis.call('DEL', ARGV[2] .. ':item:' .. id, ARGV[2] .. ':campaign:' .. id)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
    over = over - 1
    evicted = evicted + 1
  end
end
return evicted
