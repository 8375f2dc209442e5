-- KEYS: seen placed
-- ARGV: now tickets...
-- Tickets still there are seen ``now``; the placements found for them are handed over (and
-- dropped): ticket, placement pairs.
local found = {}
for i = 2, #ARGV do
  local ticket = ARGV[i]
  if redis.call('ZSCORE', KEYS[1], ticket) then
    redis.call('ZADD', KEYS[1], ARGV[1], ticket)
  end
  local placement = redis.call('HGET', KEYS[2], ticket)
  if placement then
    redis.call('HDEL', KEYS[2], ticket)
    table.insert(found, ticket)
    table.insert(found, placement)
  end
end
return found
