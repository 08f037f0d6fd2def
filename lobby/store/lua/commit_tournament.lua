-- Writes a tournament's state and version only if the stored version is still the one read
-- (KEYS: state, version; ARGV: the version read, '' for a new tournament; the new version;
-- the state as JSON). Returns 1 if written, 0 if another process committed first.
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then
    return 0
end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[2])
return 1
