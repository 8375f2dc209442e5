-- A function, not a script: write_room(room, chat, expected, version, data, step, ttl,
-- publish, channel, code) writes a room's next version if its stored one is ``expected``
-- (0 when absent), refreshes the time to live of the room and its chat, announces the version
-- on the room's channel, and returns 1; or 0 when the version moved. With ``step`` '1' the data
-- is the move that made the version, appended as field ``m<version>``; otherwise it is a new
-- snapshot, which drops the moves since the last one.
local function write_room(room, chat, expected, version, data, step, ttl, publish, channel,
                          code)
  local current = redis.call('HGET', room, 'v')
  if (current or '0') ~= expected then
    return 0
  end
  if step == '1' then
    redis.call('HSET', room, 'v', version, 'm' .. version, data)
  else
    local moved = {}
    for n = tonumber(redis.call('HGET', room, 's') or expected) + 1, tonumber(expected) do
      table.insert(moved, 'm' .. n)
    end
    if #moved > 0 then
      redis.call('HDEL', room, unpack(moved))
    end
    redis.call('HSET', room, 'v', version, 's', version, 'data', data)
  end
  if tonumber(ttl) > 0 then
    redis.call('EXPIRE', room, ttl)
    redis.call('EXPIRE', chat, ttl)
  else
    redis.call('PERSIST', room)
    redis.call('PERSIST', chat)
  end
  redis.call(publish, channel, 'commit\n' .. code .. '\n' .. version)
  return 1
end
