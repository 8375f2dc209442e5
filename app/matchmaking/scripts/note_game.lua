-- KEYS: games versions live listings
-- ARGV: code version now listing playing
-- A game's entry in the lobby's lists as of ``version``, unless a newer version's is there:
-- in play (``playing`` 1) or not, listed to watch (``listing``) or not.
local seen = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if tonumber(ARGV[2]) < seen then
  return 0
end
if ARGV[5] == '1' then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
else
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
end
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[4])
else
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('HDEL', KEYS[4], ARGV[1])
end
return 1
