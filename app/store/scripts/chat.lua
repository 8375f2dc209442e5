-- KEYS: room chat
-- ARGV: message keep publish channel event
-- Keeps ``message`` as the newest of the room's last ``keep`` chat lines and announces
-- ``event`` on the room's channel. Nothing is kept for a room that is gone (0); what is kept
-- takes the room's time to live, and the room notes that it has a chat (``c``) for its commits
-- to renew with its own.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], 'c', '1')
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[2], ttl)
else
  redis.call('PERSIST', KEYS[2])
end
redis.call(ARGV[3], ARGV[4], ARGV[5])
return 1
