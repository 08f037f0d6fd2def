-- Take or renew a lease, and make the room's due entry no later than its lapse.
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'LT', ARGV[1], ARGV[3])
return 1
