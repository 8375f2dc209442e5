-- KEYS: waiting seen taken leases
-- ARGV: lease_until tickets...
-- Takes every one of ``tickets`` for a table, leased until ``lease_until``: 1, or 0 (and
-- nothing taken) when one of them is no longer waiting.
for i = 2, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then
    return 0
  end
end
for i = 2, #ARGV do
  local ticket = ARGV[i]
  redis.call('HSET', KEYS[3], ticket, redis.call('HGET', KEYS[1], ticket))
  redis.call('HDEL', KEYS[1], ticket)
  redis.call('ZREM', KEYS[2], ticket)
  redis.call('ZADD', KEYS[4], ARGV[1], ticket)
end
return 1
