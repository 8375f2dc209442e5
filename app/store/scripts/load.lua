-- KEYS: room
-- ARGV: after
-- A room as a reader needs it, given the version it holds (``after``; 0: none). Returns the
-- room's version, '1' with its snapshot or '0' without (the reader's copy is not older than
-- the snapshot), the version the moves start after, the snapshot ('' without), then the
-- moves. Nothing for no room.
local room = redis.call('HMGET', KEYS[1], 'v', 's', 'data')
if not room[1] then
  return false
end
local version = tonumber(room[1])
local base = tonumber(room[2])
local after = tonumber(ARGV[1])
local reply
if base <= after and after <= version then
  reply = {room[1], '0', ARGV[1], ''}
  base = after
else
  reply = {room[1], '1', tostring(base), room[3]}
end
if base < version then
  local moved = {}
  for n = base + 1, version do
    table.insert(moved, 'm' .. n)
  end
  for _, move in ipairs(redis.call('HMGET', KEYS[1], unpack(moved))) do
    table.insert(reply, move)
  end
end
return reply
