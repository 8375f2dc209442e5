-- KEYS: held
-- ARGV: until member seconds
-- Holds ``member`` in the set until ``until``. The set lives ``seconds``, as long as its
-- longest hold: a short hold never shortens it.
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
return 1
