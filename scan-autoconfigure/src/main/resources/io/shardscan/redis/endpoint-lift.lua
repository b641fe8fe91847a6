-- Lifts an endpoint's ban and forgets its trips. KEYS[1] the task's bans, KEYS[2] the endpoint's trips;
-- ARGV[1] endpoint. Returns 1 when there was a ban, else 0.
redis.call('DEL', KEYS[2])
return redis.call('HDEL', KEYS[1], ARGV[1])
