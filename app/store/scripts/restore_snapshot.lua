-- A function, not a script: restore_snapshot(room, chat, fields, ttl, lines) writes a parked
-- room brought back from the database: its hash's ``fields`` (its snapshot, and what else the
-- caller keeps there) and the chat ``lines`` it was parked with, oldest first, in place of any
-- chat under ``chat``. Both live ``ttl`` seconds ('0': kept), renewed by the room's next
-- commit (``c`` says it has a chat to renew).
local function restore_snapshot(room, chat, fields, ttl, lines)
  local said = #lines > 0
  if said then
    table.insert(fields, 'c')
    table.insert(fields, '1')
  end
  redis.call('HSET', room, unpack(fields))
  redis.call('DEL', chat)
  if said then
    redis.call('RPUSH', chat, unpack(lines))
  end
  if tonumber(ttl) > 0 then
    redis.call('EXPIRE', room, ttl)
    if said then
      redis.call('EXPIRE', chat, ttl)
    end
  end
end
