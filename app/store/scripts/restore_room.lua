-- KEYS: room chat
-- ARGV: version data ttl chat...
-- A parked room brought back on a Redis Cluster, its first half: written as a snapshot at
-- ``version`` with the chat lines it was parked with (restore_snapshot.lua), only if no room
-- is there; its bucket's indexes follow (index.lua). 1 when written, 0 when a room was there.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local fields = {'v', ARGV[1], 's', ARGV[1], 'data', ARGV[2]}
restore_snapshot(KEYS[1], KEYS[2], fields, ARGV[3], {unpack(ARGV, 4)})
return 1
