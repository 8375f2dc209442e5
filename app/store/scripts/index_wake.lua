-- KEYS: wake indexed
-- ARGV: code version wake_at ttl
-- A commit on a Redis Cluster, its second half when only the room's wake time moved
-- (commit_room.lua said so): the room's entry in its bucket's wake set ('' for none), unless a
-- newer version's entries are there already (written_for): 0 then, else 1.
local code, version, wake_at = ARGV[1], ARGV[2], ARGV[3]
if not written_for(KEYS[2], version, ARGV[4]) then
  return 0
end
if wake_at == '' then
  redis.call('ZREM', KEYS[1], code)
else
  redis.call('ZADD', KEYS[1], wake_at, code)
end
return 1
