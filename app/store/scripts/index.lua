-- KEYS: wake listed listings waiting indexed
-- ARGV: code version wake_at listing expires_at waiting ttl
-- A commit on a Redis Cluster, its second half when the room is (or was just) listed or
-- waiting (commit_room.lua said so): every entry of the room in its bucket's indexes, on the
-- bucket's shard, unless a newer version's are there already (written_for): 0 then, else 1.
-- The listed and waiting sets are scored by when the room expires (most recently changed
-- first).
local wake, listed, listings, waiting, indexed = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local code, version, wake_at = ARGV[1], ARGV[2], ARGV[3]
local listing, expires_at, is_waiting, ttl = ARGV[4], ARGV[5], ARGV[6], ARGV[7]
if not written_for(indexed, version, ttl) then
  return 0
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
