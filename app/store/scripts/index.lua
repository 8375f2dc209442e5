-- KEYS: wake listed listings waiting indexed
-- ARGV: code version wake_at listing expires_at waiting ttl
-- A commit on a Redis Cluster, its second half: the room's entries in its bucket's indexes
-- (write_index), on the bucket's shard, unless a newer version's are there already.
return write_index(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5],
                   ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7])
