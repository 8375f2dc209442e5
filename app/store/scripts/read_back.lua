-- KEYS: room
-- ARGV: version step
-- After a commit whose answer was lost: the room's version and what the room holds for the
-- commit's ``version`` (``step`` '1': it was a move): the move, or the snapshot ('' if neither
-- is there).
local room = redis.call('HMGET', KEYS[1], 'v', 's', 'data', 'm' .. ARGV[1])
local current = room[1] or '0'
if ARGV[2] == '1' then
  return {current, room[4] or ''}
end
if room[2] == ARGV[1] then
  return {current, room[3]}
end
return {current, ''}
