-- KEYS: games versions live listings
-- ARGV: since offset limit
-- Games not noted since ``since`` are dropped; returns the page's listings, then how many are
-- listed, then how many games are in play.
local stale = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 500)
for _, code in ipairs(stale) do
  redis.call('ZREM', KEYS[1], code)
  redis.call('HDEL', KEYS[2], code)
  redis.call('ZREM', KEYS[3], code)
  redis.call('HDEL', KEYS[4], code)
end
local page = {}
local start = tonumber(ARGV[2])
local codes = redis.call('ZREVRANGE', KEYS[3], start, start + tonumber(ARGV[3]) - 1)
if #codes > 0 then
  page = redis.call('HMGET', KEYS[4], unpack(codes))
end
table.insert(page, redis.call('ZCARD', KEYS[3]))
table.insert(page, redis.call('ZCARD', KEYS[1]))
return page
