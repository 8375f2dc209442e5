-- KEYS: room chat
-- ARGV: expected version data step ttl publish channel code
-- A commit on a Redis Cluster, its first half: the room alone (write_room), on the room's
-- shard. Its bucket's indexes follow (index.lua). 1 when written, 0 when the version moved.
return write_room(KEYS[1], KEYS[2],
                  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
