-- KEYS: waiting seen
-- ARGV: ticket player now
-- A ticket joins its queue: the player's JSON under the ticket, seen ``now``.
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
