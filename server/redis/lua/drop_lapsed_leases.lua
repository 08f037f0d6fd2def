-- Drop the lapsed leases of a room (KEYS[1], lapsed up to ARGV[1]); returns them and the
-- next lapse ('' if no lease is left).  The room's due entry is the caller's next step.
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1]) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {lapsed, first[2] or ''}
