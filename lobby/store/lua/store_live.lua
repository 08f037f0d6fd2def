-- Write a live line unless its game is finished or a newer line is stored (a slow writer
-- never puts back an older state, nor a finished game).
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local old = redis.call('GET', KEYS[1])
if old and (cjson.decode(old)['version'] or 0) > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[3])
redis.call('SADD', KEYS[5], ARGV[3])
return 1
