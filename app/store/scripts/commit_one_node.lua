-- KEYS: room chat wake listed listings waiting indexed
-- ARGV: expected version data step ttl publish channel code wake_at listing expires_at waiting
-- A commit on one Redis node: the room (write_room) and its bucket's indexes (write_index) in
-- one script. 1 when written, 0 when the room's version moved.
if write_room(KEYS[1], KEYS[2],
              ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]) == 0 then
  return 0
end
write_index(KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7],
            ARGV[8], ARGV[2], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[5])
return 1
