-- KEYS: waiting seen taken leases
-- ARGV: now stale_before
-- The queue as it stands: taken tickets whose lease ran out by ``now`` wait again, tickets
-- not seen since ``stale_before`` are dropped; the waiting players' JSON.
local due = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[1])
for _, ticket in ipairs(due) do
  local player = redis.call('HGET', KEYS[3], ticket)
  redis.call('HDEL', KEYS[3], ticket)
  redis.call('ZREM', KEYS[4], ticket)
  if player then
    redis.call('HSET', KEYS[1], ticket, player)
    redis.call('ZADD', KEYS[2], ARGV[1], ticket)
  end
end
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[2])
for _, ticket in ipairs(stale) do
  redis.call('HDEL', KEYS[1], ticket)
  redis.call('ZREM', KEYS[2], ticket)
end
return redis.call('HVALS', KEYS[1])
