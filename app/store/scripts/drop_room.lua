-- KEYS: room chat
-- ARGV: version
-- A parked room taken out of Redis, with its chat, only if it is still at ``version`` (a
-- move since keeps it). Its bucket's index entries follow (forget.lua). 1 when dropped.
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
