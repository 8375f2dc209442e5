-- KEYS: room chat
-- ARGV: version chat_last
-- A parked room taken out of Redis, with its chat, only if it is still at ``version`` (a
-- move since keeps it) and its chat's newest line is still ``chat_last`` ('' for none: a line
-- said since the database was given the chat keeps it too). Its bucket's index entries follow
-- (forget.lua). 1 when dropped.
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then
  return 0
end
if (redis.call('LINDEX', KEYS[2], -1) or '') ~= ARGV[2] then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
