-- KEYS: hits
-- ARGV: window
-- Counts one attempt; the count so far in the window of ``window`` seconds that the first
-- attempt opened.
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return count
