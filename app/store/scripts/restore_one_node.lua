-- KEYS: room wake chat
-- ARGV: version data ttl code wake_at chat...
-- A parked room brought back on one Redis node: written as a snapshot at ``version`` with the
-- chat lines it was parked with (restore_snapshot.lua) and its wake time in its bucket's
-- index, only if no room is there (a room there is as new or newer: another process brought
-- it back first, or it moved on). The room remembers its wake time (``w``) as a commit does.
-- 1 when written, 0 when a room was there.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local fields = {'v', ARGV[1], 's', ARGV[1], 'data', ARGV[2], 'w', ARGV[5]}
restore_snapshot(KEYS[1], KEYS[3], fields, ARGV[3], {unpack(ARGV, 6)})
if ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
end
return 1
