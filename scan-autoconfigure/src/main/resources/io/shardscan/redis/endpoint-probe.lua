-- Claims the probe of a ban that has ended: extends it by ARGV[2] ms from now, so one caller wins.
-- KEYS[1] the task's bans; ARGV[1] endpoint, ARGV[2] hold in ms. Returns 1 when claimed, else 0.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ban = redis.call('HGET', KEYS[1], ARGV[1])
if not ban then
  return 0
end
local since, untilMs, reason = string.match(ban, '^(%d+)|(%d+)|(.*)$')
if tonumber(untilMs) > now then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], since .. '|' .. string.format('%d', now + tonumber(ARGV[2])) .. '|' .. reason)
return 1
