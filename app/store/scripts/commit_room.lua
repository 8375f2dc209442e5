-- KEYS: room chat
-- ARGV: expected version data step ttl keep now publish channel code
-- A commit on a Redis Cluster, its first half: the room alone (write_room), on the room's
-- shard. Its bucket's indexes follow (index.lua). 1 when written, 0 when the version moved.
local a = {
  expected = ARGV[1], version = ARGV[2], data = ARGV[3], step = ARGV[4], ttl = ARGV[5],
  keep = ARGV[6], now = ARGV[7], publish = ARGV[8], channel = ARGV[9], code = ARGV[10],
}
if write_room(KEYS[1], KEYS[2], a, nil) then
  return 1
end
return 0
