-- KEYS: held until
-- ARGV: now until claim pairs...
-- Which ticket holds each player (``held``: player id -> ticket; ``until``: player id -> held
-- until). ``pairs``: player id, ticket, ... With ``claim`` 1 a player held by another ticket
-- is refused (0); otherwise only the holding ticket's hold is renewed. Holds that ran out
-- are swept.
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 100)
for _, player in ipairs(expired) do
  redis.call('HDEL', KEYS[1], player)
  redis.call('ZREM', KEYS[2], player)
end
local claim = ARGV[3] == '1'
for i = 4, #ARGV, 2 do
  local held = redis.call('HGET', KEYS[1], ARGV[i])
  if held == ARGV[i + 1] or (claim and not held) then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    redis.call('ZADD', KEYS[2], ARGV[2], ARGV[i])
  elseif claim then
    return 0
  end
end
return 1
