--[[
  Creates a review item once (SET NX: a submission is stored once for the whole retention), indexes it as pending (by
  time and by confidence) and adds its line to the account's search hash; or, when an identical submission (same
  fingerprint) to the account is still pending and was first seen within the campaign window, adds this submission's
  id to that item's campaign instead of making a new item. Then keeps the account's pending items at most ARGV[11]
  (an evicted item goes with every index entry, its search line, its campaign and its fingerprint key), evicting at
  most ARGV[13] per call: each call adds one item, so a cap lowered on a full account is reached over the next calls
  while no call holds Redis longer than a few evictions take. The pending spam verdict the model was surest of goes
  first (least to learn from a moderator), then the oldest of any; ingest-batch.lua does not store one that would go first.

  KEYS[1]      item key
  KEYS[2..5]   pending indexes by receivedAt: all, by status, by form, by form and status
  KEYS[6]      the account's set of form ids
  KEYS[7]      fingerprint key: the submissionId of the pending item it leads to, for the campaign window
  KEYS[8..11]  pending indexes by confidence, in the order of KEYS[2..5]
  KEYS[12]     the account's search hash
  ARGV[1]      the item (JSON)
  ARGV[2]      score: receivedAt in ms
  ARGV[3]      expiry: receivedAt + retention, in ms
  ARGV[4]      submissionId
  ARGV[5]      formId
  ARGV[6]      now, in ms
  ARGV[7]      campaign window, in ms (0: no merging)
  ARGV[8]      the account's key base: `<base>:item:<id>`, `<base>:campaign:<id>`, … (same hash tag, same slot)
  ARGV[9]      the model's confidence
  ARGV[10]     the item's search line
  ARGV[11]     most pending items the account keeps (0: no cap)
  ARGV[12]     most submissionIds a campaign's set keeps (past it, only counted)
  ARGV[13]     most items one call evicts (more than 1)

  Returns {code, evicted}: code 1 stored, 2 merged into a campaign, 0 duplicate, -1 already past retention.
]]
local base = ARGV[8]
if tonumber(ARGV[3]) <= tonumber(ARGV[6]) then return {-1, 0} end
if tonumber(ARGV[7]) > 0 then
  local leader = redis.call('GET', KEYS[7])
  if leader and leader ~= ARGV[4] and redis.call('ZSCORE', KEYS[2], leader) then
    local campaign = base .. ':campaign:' .. leader
    if redis.call('SISMEMBER', campaign, ARGV[4]) == 1 then return {0, 0} end
    -- The campaign lives as long as its item; past its cap of ids a member is only counted.
    local ttl = redis.call('PTTL', base .. ':item:' .. leader)
    local key = campaign
    if redis.call('SCARD', campaign) >= tonumber(ARGV[12]) then
      key = campaign .. ':more'
      redis.call('INCR', key)
    else
      redis.call('SADD', campaign, ARGV[4])
    end
    if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
    return {2, 0}
  end
end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[3]) then return {0, 0} end
for i = 2, 5 do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[4]) end
redis.call('SADD', KEYS[6], ARGV[5])
for i = 8, 11 do redis.call('ZADD', KEYS[i], ARGV[9], ARGV[4]) end
redis.call('HSET', KEYS[12], ARGV[4], ARGV[10])
-- The search hash lives as long as the newest item in it.
local expiry = tonumber(ARGV[3])
if redis.call('PEXPIRETIME', KEYS[12]) < expiry then redis.call('PEXPIREAT', KEYS[12], expiry) end
if tonumber(ARGV[7]) > 0 then redis.call('SET', KEYS[7], ARGV[4], 'PX', ARGV[7]) end

local max = tonumber(ARGV[11])
local evicted = 0
local spamByConfidence = base .. ':pending-conf:status:spam'
-- The next to evict: the pending spam verdict the model was surest of (least to learn from a moderator), passing over a
-- disagreement among the 8 surest (the shadow model thinks otherwise: worth a look), else the oldest pending item.
local function nextToEvict()
  local surest = redis.call('ZRANGE', spamByConfidence, -8, -1)
  for j = #surest, 1, -1 do
    local raw = redis.call('GET', base .. ':item:' .. surest[j])
    local ok, item = pcall(cjson.decode, raw or '')
    local queued = ok and type(item) == 'table' and type(item.queued) == 'table' and item.queued.reason or nil
    if queued ~= 'disagreement' or j == 1 then return surest[j], raw, ok, item end
  end
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if oldest == nil then return nil end
  local raw = redis.call('GET', base .. ':item:' .. oldest)
  local ok, item = pcall(cjson.decode, raw or '')
  return oldest, raw, ok, item
end
if max > 0 then
  local over = math.min(redis.call('ZCARD', KEYS[2]) - max, tonumber(ARGV[13]))
  while over > 0 do
    local id, raw, ok, item = nextToEvict()
    if id == nil then break end
    local formId = ok and type(item) == 'table' and item.formId or nil
    -- The by-form keys name the form as encodeURIComponent does (keys.ts).
    local form = formId and string.gsub(formId, "[^%w%-%._~!%*'%(%)]", function(c) return string.format('%%%02X', string.byte(c)) end)
    local indexes = { ':pending', ':pending-conf' }
    for _, index in ipairs(indexes) do
      for _, suffix in ipairs({ '', ':status:spam', ':status:legitimate' }) do
        redis.call('ZREM', base .. index .. suffix, id)
        if form then redis.call('ZREM', base .. index .. ':form:' .. form .. suffix, id) end
      end
    end
    local line = redis.call('HGET', KEYS[12], id)
    if line then
      local fp = string.match(line, '^%a%d+:(%x+)|')
      if fp and redis.call('GET', base .. ':fingerprint:' .. fp) == id then redis.call('DEL', base .. ':fingerprint:' .. fp) end
      redis.call('HDEL', KEYS[12], id)
    end
    redis.call('DEL', base .. ':item:' .. id, base .. ':campaign:' .. id, base .. ':campaign:' .. id .. ':more')
    over = over - 1
    evicted = evicted + 1
  end
end
return {1, evicted}
