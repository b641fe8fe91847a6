-- Extends, in one atomic step, every lease that still holds the expected owner and epoch.
-- KEYS[i] a lease; ARGV[1] ttl in ms; ARGV[i + 1] the value KEYS[i] must hold, "epoch:node".
-- Returns the indexes (1-based) of the KEYS that were extended.
local renewed = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[1])
    renewed[#renewed + 1] = i
  end
end
return renewed
