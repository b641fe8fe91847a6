-- The task's bans with the server's time. KEYS[1] the task's bans (endpoint -> "since|until|reason").
-- Returns now in ms, then endpoint, value, endpoint, value, ...
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local reply = redis.call('HGETALL', KEYS[1])
table.insert(reply, 1, string.format('%d', now))
return reply
