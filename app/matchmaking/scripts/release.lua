-- KEYS: waiting seen taken leases
-- ARGV: now tickets...
-- Taken tickets wait again, seen ``now`` (their table was not made).
for i = 2, #ARGV do
  local ticket = ARGV[i]
  local player = redis.call('HGET', KEYS[3], ticket)
  if player then
    redis.call('HDEL', KEYS[3], ticket)
    redis.call('ZREM', KEYS[4], ticket)
    redis.call('HSET', KEYS[1], ticket, player)
    redis.call('ZADD', KEYS[2], ARGV[1], ticket)
  end
end
return 1
