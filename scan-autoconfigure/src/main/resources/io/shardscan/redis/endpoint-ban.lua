-- Bans an endpoint from the server's now for ARGV[2] ms, keeping the start of a ban already recorded,
-- and forgets its trips. KEYS[1] the task's bans, a hash of endpoint to "since|until|reason" in ms;
-- KEYS[2] the endpoint's trips. ARGV[1] endpoint, ARGV[2] ban in ms, ARGV[3] reason.
-- Returns 1 when this call started the ban, 0 when a ban in force was extended.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local since = now
local started = 1
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then
  since = tonumber(string.match(old, '^(%d+)|'))
  if tonumber(string.match(old, '^%d+|(%d+)')) > now then
    started = 0
  end
end
redis.call('HSET', KEYS[1], ARGV[1],
  string.format('%d', since) .. '|' .. string.format('%d', now + tonumber(ARGV[2])) .. '|' .. ARGV[3])
redis.call('DEL', KEYS[2])
return started
