-- KEYS: held
-- ARGV: now
-- A held set: drops the members whose time ran out and returns how many are left.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
