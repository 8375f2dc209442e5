-- KEYS: listed listings
-- ARGV: now newest
-- A bucket's page of the public list: entries of rooms that expired meanwhile (their score is
-- when) are dropped first. Returns the bucket's total, then code, score and listing of each of
-- its ``newest`` entries.
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, code in ipairs(gone) do
  redis.call('HDEL', KEYS[2], code)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local page = {redis.call('ZCARD', KEYS[1])}
local newest = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
for i = 1, #newest, 2 do
  table.insert(page, newest[i])
  table.insert(page, newest[i + 1])
  table.insert(page, redis.call('HGET', KEYS[2], newest[i]) or '')
end
return page
