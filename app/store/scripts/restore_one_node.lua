-- KEYS: room wake chat
-- ARGV: version data ttl code wake_at chat...
-- A parked room brought back on one Redis node: written as a snapshot at ``version`` with its
-- wake time in its bucket's index and the chat lines it was parked with (oldest first), only
-- if no room is there (a room there is as new or newer: another process brought it back
-- first, or it moved on). The room remembers its wake time (``w``) as a commit does; its time
-- to live is ``ttl`` seconds ('0': kept), renewed by its next commit, and its chat's with it.
-- 1 when written, 0 when a room was there.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[1], 'data', ARGV[2], 'w', ARGV[5])
redis.call('DEL', KEYS[3])
if #ARGV > 5 then
  redis.call('HSET', KEYS[1], 'c', '1')
  redis.call('RPUSH', KEYS[3], unpack(ARGV, 6))
end
if tonumber(ARGV[3]) > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  if #ARGV > 5 then
    redis.call('EXPIRE', KEYS[3], ARGV[3])
  end
end
if ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
end
return 1
