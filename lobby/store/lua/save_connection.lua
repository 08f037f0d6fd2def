-- Store a connection and its deadline together; when renewing (ARGV[4] == 1), only if the
-- connection is still there.
if ARGV[4] == '1' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
