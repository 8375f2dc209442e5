-- KEYS: room
-- ARGV: version wake_at
-- On a Redis Cluster, before a room's true wake time as of ``version`` is put back in its
-- bucket (settle_wake.lua): the room remembers it (``w``), so that its next commit compares
-- its own wake time with the one indexed. 0, and nothing to put back, when the room has moved
-- on (its newer commit wrote or kept its own wake time) or is gone.
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'w', ARGV[2])
return 1
