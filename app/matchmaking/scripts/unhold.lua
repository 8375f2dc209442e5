-- KEYS: held until
-- ARGV: player ticket
-- The player is no longer held, if ``ticket`` holds them.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return 1
