-- Set (or remove) a room's clock deadline, only if the room is still at the version the
-- deadline was computed from; returns whether it was.
local version = redis.call('HGET', KEYS[1], 'version')
if version ~= ARGV[1] then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[2], ARGV[2])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
end
return 1
