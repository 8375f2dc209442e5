-- KEYS: room
-- ARGV: version data ttl
-- A parked room brought back on a Redis Cluster, its first half: written as a snapshot at
-- ``version``, only if no room is there; its bucket's indexes follow (index.lua). Its time to
-- live is ``ttl`` seconds ('0': kept), renewed by its next commit. 1 when written, 0 when a
-- room was there.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[1], 'data', ARGV[2])
if tonumber(ARGV[3]) > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
return 1
