-- A function, not a script: write_index(wake, listed, listings, waiting, indexed, code,
-- version, wake_at, listing, expires_at, is_waiting, ttl) writes a room's entries in its
-- bucket's indexes and returns 1, unless a newer version's are there already (0). The listed
-- and waiting sets are scored by when the room expires (most recently changed first).
local function write_index(wake, listed, listings, waiting, indexed,
                           code, version, wake_at, listing, expires_at, is_waiting, ttl)
  local seen = tonumber(redis.call('GET', indexed) or '0')
  if tonumber(version) < seen then
    return 0
  end
  if tonumber(ttl) > 0 then
    redis.call('SET', indexed, version, 'EX', ttl)
  else
    redis.call('SET', indexed, version)
  end
  if wake_at == '' then
    redis.call('ZREM', wake, code)
  else
    redis.call('ZADD', wake, wake_at, code)
  end
  if listing ~= '' then
    redis.call('ZADD', listed, expires_at, code)
    redis.call('HSET', listings, code, listing)
  elseif redis.call('ZREM', listed, code) == 1 then
    redis.call('HDEL', listings, code)
  end
  if is_waiting == '1' then
    redis.call('ZADD', waiting, expires_at, code)
  else
    redis.call('ZREM', waiting, code)
  end
  return 1
end
