-- KEYS: waiting seen
-- ARGV: ticket
-- A ticket leaves its queue: 1 if it was waiting there, else 0.
if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
return 0
