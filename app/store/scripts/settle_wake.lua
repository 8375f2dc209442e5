-- KEYS: wake indexed
-- ARGV: code version wake_at
-- On a Redis Cluster: the room's true wake time (``wake_at``, '': none) as of ``version``, put
-- back by the process that looked at it, unless a newer version's entry is there (the
-- bucket's ``indexed`` says which version wrote it: the room is on another shard).
if tonumber(ARGV[2]) < tonumber(redis.call('GET', KEYS[2]) or '0') then
  return 0
end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
