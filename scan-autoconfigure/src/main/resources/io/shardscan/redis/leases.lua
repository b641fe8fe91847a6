-- Reads the leases of the given shards at one instant of the server's clock.
-- KEYS[1] shard -> last granted epoch; KEYS[i + 1] the lease of shard ARGV[i].
-- Returns the server time in ms, then per shard: the lease value ("epoch:node", '' when free),
-- when it expires in ms since the epoch, and the shard's last granted epoch ('0' if unknown, keeping the
-- triples aligned). The expiry is the key's own (PEXPIRETIME, Redis 7), so every read gives the same
-- instant: TIME + PTTL drifted by a millisecond between reads, as Redis 7 freezes the time PTTL counts
-- from at the script's start while TIME goes on. Redis 6 has no PEXPIRETIME and gets TIME + PTTL.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local out = { now }
for i, shard in ipairs(ARGV) do
  out[#out + 1] = redis.call('GET', KEYS[i + 1]) or ''
  local expires = redis.pcall('PEXPIRETIME', KEYS[i + 1])
  if type(expires) ~= 'number' then
    expires = now + redis.call('PTTL', KEYS[i + 1])
  end
  out[#out + 1] = expires
  out[#out + 1] = redis.call('HGET', KEYS[1], shard) or '0'
end
return out
