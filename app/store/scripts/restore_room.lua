-- KEYS: room chat
-- ARGV: version data ttl chat...
-- A parked room brought back on a Redis Cluster, its first half: written as a snapshot at
-- ``version`` with the chat lines it was parked with, oldest first, only if no room is there;
-- its bucket's indexes follow (index.lua). Its time to live is ``ttl`` seconds ('0': kept),
-- renewed by its next commit, and its chat's with it. 1 when written, 0 when a room was there.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[1], 'data', ARGV[2])
redis.call('DEL', KEYS[2])
if #ARGV > 3 then
  redis.call('HSET', KEYS[1], 'c', '1')
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 4))
end
if tonumber(ARGV[3]) > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  if #ARGV > 3 then
    redis.call('EXPIRE', KEYS[2], ARGV[3])
  end
end
return 1
