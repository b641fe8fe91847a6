-- Deletes a lease only when it still holds the expected owner and epoch.
-- KEYS[1] lease; ARGV[1] the value it must hold, "epoch:node".
-- Returns 1 when released, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
