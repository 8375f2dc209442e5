-- KEYS: taken leases placed
-- ARGV: seconds pairs...
-- Taken tickets are placed at their table (``pairs``: ticket, placement JSON, ...), kept for
-- their players' processes to find for ``seconds``.
for i = 2, #ARGV, 2 do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[3], ARGV[1])
return 1
