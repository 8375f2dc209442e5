-- KEYS: wake room
-- ARGV: code version wake_at
-- On one Redis node: the room's true wake time (``wake_at``, '': none) as of ``version``, put
-- back by the process that looked at it, unless the room has a newer version (its commit
-- writes the room and its indexes together). The room remembers the wake time put back
-- (``w``), which its next commit compares with its own; a room that is gone keeps nothing.
local version = redis.call('HGET', KEYS[2], 'v')
if tonumber(ARGV[2]) < tonumber(version or '0') then
  return 0
end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
if version then
  redis.call('HSET', KEYS[2], 'w', ARGV[3])
end
return 1
