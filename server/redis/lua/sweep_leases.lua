-- Drop the lapsed leases of a room and set its due entry to the next lapse (or remove it);
-- returns the leases dropped.
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1]) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if first[2] then
  redis.call('ZADD', KEYS[2], first[2], ARGV[2])
else
  redis.call('ZREM', KEYS[2], ARGV[2])
end
return lapsed
