-- KEYS: claim
-- ARGV: token milliseconds
-- 1 when the claim is the caller's (its ``token``) for ``milliseconds``. Sent again safely when
-- its answer was lost: a claim already taken by the same token is still its own.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return redis.call('GET', KEYS[1]) == ARGV[1] and 1 or 0
