-- KEYS: room
-- ARGV: version
-- On a Redis Cluster, once every index entry of ``version``'s commit is written (index.lua,
-- or found newer there): the room forgets that this write was pending (``p``), unless a later
-- commit's is (commit_room.lua).
if redis.call('HGET', KEYS[1], 'p') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'p')
end
return 1
