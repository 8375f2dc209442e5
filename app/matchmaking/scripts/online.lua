-- KEYS: online
-- ARGV: process count now since
-- A process reports how many players it has connected (none reported for ``process`` '');
-- returns the sum over the reports made since ``since``, dropping older ones.
if ARGV[1] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. ARGV[3])
end
local total = 0
local reports = redis.call('HGETALL', KEYS[1])
for i = 1, #reports, 2 do
  local report = reports[i + 1]
  local bar = string.find(report, '|', 1, true)
  if tonumber(string.sub(report, bar + 1)) < tonumber(ARGV[4]) then
    redis.call('HDEL', KEYS[1], reports[i])
  else
    total = total + tonumber(string.sub(report, 1, bar - 1))
  end
end
return total
