-- KEYS: room chat
-- ARGV: expected version data step ttl keep expires_at renewed_until publish channel code
-- A commit on a Redis Cluster, its first half: the room alone (write_room), on the room's
-- shard. Its bucket's indexes follow (index.lua). 1 when written, 0 when the version moved.
local a = {
  expected = ARGV[1], version = ARGV[2], data = ARGV[3], step = ARGV[4], ttl = ARGV[5],
  keep = ARGV[6], expires_at = ARGV[7], renewed_until = ARGV[8], publish = ARGV[9],
  channel = ARGV[10], code = ARGV[11],
}
if write_room(KEYS[1], KEYS[2], a, nil) then
  return 1
end
return 0
