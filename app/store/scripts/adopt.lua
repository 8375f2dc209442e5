-- KEYS: old_room old_chat room chat old_wake old_listed old_listings old_waiting wake listed listings waiting indexed
-- ARGV: code
-- One node only: moves a room stored under an earlier release's keys (room, chat; the
-- indexes wake, listed, listings, waiting) to this release's keys and its bucket's indexes,
-- with its time to live and index entries; a room already moved is left alone.
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
redis.call('RENAME', KEYS[1], KEYS[3])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('RENAME', KEYS[2], KEYS[4])
end
local code = ARGV[1]
local wake = redis.call('ZSCORE', KEYS[5], code)
if wake then
  redis.call('ZADD', KEYS[9], wake, code)
  redis.call('ZREM', KEYS[5], code)
end
local listed = redis.call('ZSCORE', KEYS[6], code)
if listed then
  redis.call('ZADD', KEYS[10], listed, code)
  redis.call('HSET', KEYS[11], code, redis.call('HGET', KEYS[7], code) or '')
  redis.call('ZREM', KEYS[6], code)
  redis.call('HDEL', KEYS[7], code)
end
local waiting = redis.call('ZSCORE', KEYS[8], code)
if waiting then
  redis.call('ZADD', KEYS[12], waiting, code)
  redis.call('ZREM', KEYS[8], code)
end
local ttl = redis.call('PTTL', KEYS[3])
local version = redis.call('HGET', KEYS[3], 'v') or '0'
if ttl > 0 then
  redis.call('SET', KEYS[13], version, 'PX', ttl)
else
  redis.call('SET', KEYS[13], version)
end
return 1
