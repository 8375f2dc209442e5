-- KEYS: wake listed listings waiting indexed
-- ARGV: code version wake_at listing expires_at waiting ttl
-- A commit on a Redis Cluster, its second half: the room's entries in its bucket's indexes,
-- on the bucket's shard, unless a newer version's are there already (``indexed``: the
-- version that wrote them; 0 then, else 1). Every entry is written, changed or not: the room
-- is on another shard, and a process that died between the two halves left them behind. The
-- listed and waiting sets are scored by when the room expires (most recently changed first).
local wake, listed, listings, waiting, indexed = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local code, version, wake_at = ARGV[1], ARGV[2], ARGV[3]
local listing, expires_at, is_waiting, ttl = ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local seen = tonumber(redis.call('GET', indexed) or '0')
if tonumber(version) < seen then
  return 0
end
if tonumber(ttl) > 0 then
  redis.call('SET', indexed, version, 'EX', ttl)
else
  redis.call('SET', indexed, version)
end
if wake_at == '' then
  redis.call('ZREM', wake, code)
else
  redis.call('ZADD', wake, wake_at, code)
end
if listing ~= '' then
  redis.call('ZADD', listed, expires_at, code)
  redis.call('HSET', listings, code, listing)
elseif redis.call('ZREM', listed, code) == 1 then
  redis.call('HDEL', listings, code)
end
if is_waiting == '1' then
  redis.call('ZADD', waiting, expires_at, code)
else
  redis.call('ZREM', waiting, code)
end
return 1
