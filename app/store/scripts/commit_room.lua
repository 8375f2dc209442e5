-- KEYS: room chat
-- ARGV: expected version data step ttl keep now publish channel code wake_at listing waiting
-- A commit on a Redis Cluster, its first half: the room (write_room), on the room's shard.
-- Its bucket's indexes live on another shard, and the second half writes them only what this
-- says, from what the room remembers having asked of them (its wake time ``w``, its listed
-- and waiting flags ``i``, as on one node):
--   0  the version moved: nothing written;
--   1  the room written, nothing for the indexes (a move in play whose wake time stays);
--   2  the wake time alone (index_wake.lua). A process dying first leaves the old one, never
--      later than the room's: a time that comes earlier is written before the commit, so
--      the room is woken early and its true time put back, never forgotten;
--   3  every entry (index.lua): the room is or was listed or waiting (their scores are when
--      it expires), or the last such write is not confirmed yet. The room remembers this
--      version (``p``) until its writer confirms the entries written (confirm_index.lua):
--      if that process died between the halves, the room's next commit, from any process,
--      writes every entry again, so a stale listing or waiting count lasts no longer.
local a = {
  expected = ARGV[1], version = ARGV[2], data = ARGV[3], step = ARGV[4], ttl = ARGV[5],
  keep = ARGV[6], now = ARGV[7], publish = ARGV[8], channel = ARGV[9], code = ARGV[10],
}
local wake_at, listing, waiting = ARGV[11], ARGV[12], ARGV[13]
local send = 1

local function remember_index(held, fields)
  if wake_at ~= (held[5] or '') then
    send = 2
    table.insert(fields, 'w')
    table.insert(fields, wake_at)
  end
  local was = held[6] or '00'
  local flags = (listing ~= '' and '1' or '0') .. waiting
  if flags ~= was then
    table.insert(fields, 'i')
    table.insert(fields, flags)
  end
  if flags ~= '00' or was ~= '00' or held[7] then
    send = 3
    table.insert(fields, 'p')
    table.insert(fields, a.version)
  end
end

if write_room(KEYS[1], KEYS[2], a, remember_index) then
  return send
end
return 0
