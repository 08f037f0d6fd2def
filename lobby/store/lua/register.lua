-- Create an account and its id index together, or nothing if the name is taken.
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('SET', KEYS[2], ARGV[2])
  return 1
end
return 0
