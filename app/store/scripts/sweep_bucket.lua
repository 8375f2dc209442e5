-- KEYS: listed listings waiting
-- ARGV: now
-- Drops a bucket's entries of rooms that expired (their score is when): readers drop them
-- too, but a bucket nobody reads would keep them. Returns how many listings went.
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, code in ipairs(gone) do
  redis.call('HDEL', KEYS[2], code)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
return #gone
