-- KEYS: held
-- ARGV: now
-- A held set (a sorted set: member -> until when): drops the members whose time ran out and
-- returns the rest.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, -1)
