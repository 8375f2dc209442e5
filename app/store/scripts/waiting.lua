-- KEYS: waiting
-- ARGV: now
-- How many rooms of a bucket wait for their first game, once those expired are dropped.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
