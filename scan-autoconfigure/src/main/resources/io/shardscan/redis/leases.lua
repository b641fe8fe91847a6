-- Reads the leases of the given shards at one instant of the server's clock.
-- KEYS[1] shard -> last granted epoch; KEYS[i + 1] the lease of shard ARGV[i].
-- Returns the server time in ms, then per shard: the lease value ("epoch:node", '' when free),
-- its PTTL in ms, and the shard's last granted epoch ('0' if unknown, keeping the triples aligned).
local time = redis.call('TIME')
local out = { tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) }
for i, shard in ipairs(ARGV) do
  out[#out + 1] = redis.call('GET', KEYS[i + 1]) or ''
  out[#out + 1] = redis.call('PTTL', KEYS[i + 1])
  out[#out + 1] = redis.call('HGET', KEYS[1], shard) or '0'
end
return out
