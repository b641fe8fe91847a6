-- Records a member's heartbeat at the server's time with its counters, and drops members silent for too long.
-- KEYS[1] members, scored by last heartbeat in ms; KEYS[2] a hash of the members' counters by node.
-- ARGV[1] node, ARGV[2] timeout in ms, ARGV[3] the node's counters ('' when it publishes none).
-- Returns the live members, their scores and counters ('' for none): node, ms, counters, node, ms, counters, ...
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], string.format('%d', now), ARGV[1])
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
else
  redis.call('HDEL', KEYS[2], ARGV[1])
end
local silent = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%d', now - tonumber(ARGV[2])))
for _, node in ipairs(silent) do
  redis.call('HDEL', KEYS[2], node)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%d', now - tonumber(ARGV[2])))
local live = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local reply = {}
for i = 1, #live, 2 do
  reply[#reply + 1] = live[i]
  reply[#reply + 1] = live[i + 1]
  reply[#reply + 1] = redis.call('HGET', KEYS[2], live[i]) or ''
end
return reply
