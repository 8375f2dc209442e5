-- KEYS: wake listed listings waiting indexed
-- ARGV: code
-- Drops an expired room's entries from its bucket's indexes.
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('DEL', KEYS[5])
return 1
