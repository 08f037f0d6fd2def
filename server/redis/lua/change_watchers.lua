-- Add to this process's spectators of a room; returns the total over every process.
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], tonumber(ARGV[2]))
if n <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
local total = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do total = total + tonumber(v) end
return total
