-- KEYS: waiting
-- ARGV: ticket
-- The waiting ticket asks to be seated with the AI now: 1, or 0 if it is not waiting.
local found = redis.call('HGET', KEYS[1], ARGV[1])
if not found then
  return 0
end
local waiting = cjson.decode(found)
waiting['ai_now'] = true
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(waiting))
return 1
