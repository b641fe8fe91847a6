-- Records one level-1 trip of an endpoint at the server's time and counts its trips in the window.
-- KEYS[1] the endpoint's trips, a sorted set scored by trip time in ms; ARGV[1] window in ms,
-- ARGV[2] a member unique to this trip. Trips older than the window are dropped (the set never
-- grows past one window) and the set expires with its newest trip's window.
-- Returns the trips within the window, this one included.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], string.format('%d', now), ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%d', now - window))
redis.call('PEXPIRE', KEYS[1], window)
return redis.call('ZCARD', KEYS[1])
