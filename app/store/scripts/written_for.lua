-- A function, not a script: written_for(indexed, version, ttl) marks a room's entries in its
-- bucket as written for ``version`` (the bucket's key ``indexed``, living ``ttl`` seconds, or
-- for ever with '0') in one SET that reads the mark it replaces: false, with that mark put
-- back, when it was newer (a late write of an older commit must not undo a newer one's).
local function written_for(indexed, version, ttl)
  local seen
  if tonumber(ttl) > 0 then
    seen = redis.call('SET', indexed, version, 'GET', 'EX', ttl)
  else
    seen = redis.call('SET', indexed, version, 'GET')
  end
  if seen and tonumber(version) < tonumber(seen) then
    redis.call('SET', indexed, seen, 'KEEPTTL')
    return false
  end
  return true
end
