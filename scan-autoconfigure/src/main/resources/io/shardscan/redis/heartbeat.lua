-- Records a member's heartbeat at the server's time and drops members silent for too long.
-- KEYS[1] members, scored by last heartbeat in ms; ARGV[1] node, ARGV[2] timeout in ms.
-- Returns the live members and their scores: node, ms, node, ms, ...
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], string.format('%d', now), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%d', now - tonumber(ARGV[2])))
return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
