-- KEYS: room chat wake listed listings waiting
-- ARGV: expected version data step ttl keep now publish channel code wake_at listing waiting
-- A commit on one Redis node: the room (write_room) and its bucket's indexes in one script,
-- so the indexes are written with the room or not at all, and only what changed is sent to
-- them: the room remembers its wake time (``w``) and whether it is listed or waiting (``i``).
-- A room in play, neither listed nor waiting, costs its indexes one ZADD when its wake time
-- moves. The listed and waiting sets are scored by when the room expires (most recently
-- changed first). 1 when written, 0 when the room's version moved.
local a = {
  expected = ARGV[1], version = ARGV[2], data = ARGV[3], step = ARGV[4], ttl = ARGV[5],
  keep = ARGV[6], now = ARGV[7], publish = ARGV[8], channel = ARGV[9], code = ARGV[10],
}
local wake_at, listing, waiting = ARGV[11], ARGV[12], ARGV[13]
local wake, listed, listings, waiting_set = KEYS[3], KEYS[4], KEYS[5], KEYS[6]

local function write_index(held, fields)
  if wake_at ~= (held[5] or '') then
    if wake_at == '' then
      redis.call('ZREM', wake, a.code)
    else
      redis.call('ZADD', wake, wake_at, a.code)
    end
    table.insert(fields, 'w')
    table.insert(fields, wake_at)
  end
  local was = held[6] or '00'
  local flags = (listing ~= '' and '1' or '0') .. waiting
  if listing ~= '' then
    redis.call('ZADD', listed, a.expires_at, a.code)
    redis.call('HSET', listings, a.code, listing)
  elseif string.sub(was, 1, 1) == '1' then
    redis.call('ZREM', listed, a.code)
    redis.call('HDEL', listings, a.code)
  end
  if waiting == '1' then
    redis.call('ZADD', waiting_set, a.expires_at, a.code)
  elseif string.sub(was, 2, 2) == '1' then
    redis.call('ZREM', waiting_set, a.code)
  end
  if flags ~= was then
    table.insert(fields, 'i')
    table.insert(fields, flags)
  end
end

if write_room(KEYS[1], KEYS[2], a, write_index) then
  return 1
end
return 0
