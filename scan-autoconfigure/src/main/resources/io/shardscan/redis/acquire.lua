-- Grants a shard's lease when no live lease is there (SET NX PX), with a new epoch of the task.
-- KEYS[1] lease, KEYS[2] the task's epoch counter, KEYS[3] shard -> last granted epoch.
-- ARGV[1] node, ARGV[2] ttl in ms, ARGV[3] shard.
-- Returns the new epoch, or nil when another node holds the shard.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  -- Seeded from the server clock in microseconds, not 0: after Redis loses its data (a restart
  -- without persistence) epochs must still exceed the ones already written to the database fences.
  -- Built from TIME's strings because a Lua number would print 16 digits in exponent form.
  local time = redis.call('TIME')
  redis.call('SET', KEYS[2], time[1] .. string.rep('0', 6 - #time[2]) .. time[2])
end
local epoch = string.format('%d', redis.call('INCR', KEYS[2]))
redis.call('SET', KEYS[1], epoch .. ':' .. ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[3], ARGV[3], epoch)
return tonumber(epoch)
