-- A function, not a script: write_room(room, chat, a, write_index) writes a room's next
-- version (the table ``a``: expected, version, data, step, ttl, keep, now, publish, channel,
-- code) if its stored version is ``a.expected`` ('0' when absent), and announces it on the
-- room's channel; false when the version moved. It sets ``a.expires_at``: ``now`` and
-- ``ttl``, or '+inf' for a room kept.
--
-- With ``step`` '1' the data is the move that made the version, appended as field
-- ``m<version>``; otherwise it is a new snapshot (``data``, its version ``s``), which drops the
-- moves since the last one. Everything the room's hash gets is one HSET, read after one HMGET.
--
-- The time to live is sent only when it must change, not at every commit: the room's ``x``
-- says until when it was last set to live (``keep`` seconds from then, a little more than
-- ``ttl``), and it is set again once that is sooner than ``ttl`` from now, or later than
-- ``keep`` from now (a shorter ``ttl`` now). A room so lives at least ``ttl``
-- untouched and at most ``keep``. ``ttl`` 0 keeps the room (``x`` 'kept'). The chat list
-- (``c``: the room has one) follows the room.
--
-- ``write_index``, if given, is called with the room's fields as read (``held``: ``v``, ``s``,
-- ``x``, ``c``, ``w``, ``i``, ``p``) and the fields to write, to write the room's indexes (or
-- say what to write to them) and add what it remembers of them.
local function write_room(room, chat, a, write_index)
  local held = redis.call('HMGET', room, 'v', 's', 'x', 'c', 'w', 'i', 'p')
  if (held[1] or '0') ~= a.expected then
    return false
  end
  local fields = {'v', a.version}
  if a.step == '1' then
    table.insert(fields, 'm' .. a.version)
    table.insert(fields, a.data)
  else
    local moved = {}
    for n = tonumber(held[2] or a.expected) + 1, tonumber(a.expected) do
      table.insert(moved, 'm' .. n)
    end
    if #moved > 0 then
      redis.call('HDEL', room, unpack(moved))
    end
    table.insert(fields, 's')
    table.insert(fields, a.version)
    table.insert(fields, 'data')
    table.insert(fields, a.data)
  end
  local lives
  local now, ttl = tonumber(a.now), tonumber(a.ttl)
  if ttl > 0 then
    a.expires_at = tostring(now + ttl)
    local lives_until = tonumber(held[3] or '')
    local renewed_until = now + tonumber(a.keep)
    if not lives_until or lives_until < now + ttl or lives_until > renewed_until then
      lives = 'renewed'
      table.insert(fields, 'x')
      table.insert(fields, tostring(renewed_until))
    end
  else
    a.expires_at = '+inf'
  end
  if ttl == 0 and held[3] ~= 'kept' then
    lives = 'kept'
    table.insert(fields, 'x')
    table.insert(fields, 'kept')
  end
  if write_index then
    write_index(held, fields)
  end
  redis.call('HSET', room, unpack(fields))
  if lives == 'renewed' then
    redis.call('EXPIRE', room, a.keep)
    if held[4] then
      redis.call('EXPIRE', chat, a.keep)
    end
  elseif lives == 'kept' then
    redis.call('PERSIST', room)
    if held[4] then
      redis.call('PERSIST', chat)
    end
  end
  redis.call(a.publish, a.channel, 'commit\n' .. a.code .. '\n' .. a.version)
  return true
end
