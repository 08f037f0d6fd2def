-- KEYS: the room, its diffs, its acks, the lobby's outbox, and (with ARGV[11]) the clocks'
-- due set.  ARGV[11]: the room's new flag time there, '-' to remove it, '' to leave it.
-- ARGV[12] is the caller's tag, returned last so the reply names its call.
if ARGV[5] ~= '' then
  local done = redis.call('HGET', KEYS[3], ARGV[5])
  if done then
    -- Written again, unchanged: a wait for replicas on this connection then covers it.
    redis.call('HSET', KEYS[3], ARGV[5], done)
    return {2, tonumber(done), ARGV[12]}
  end
end
local current = redis.call('HGET', KEYS[1], 'version')
if current ~= ARGV[1] then return {0, tonumber(current or '-1'), ARGV[12]} end
if ARGV[3] == '' then
  redis.call('HSET', KEYS[1], 'version', ARGV[2])
else
  redis.call('HSET', KEYS[1], 'version', ARGV[2], 'doc', ARGV[3], 'doc_version', ARGV[2])
end
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[6]), -1)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[5], ARGV[2]) end
if ARGV[9] ~= '' then redis.call('HSET', KEYS[4], ARGV[10], ARGV[9]) end
if ARGV[11] == '-' then
  redis.call('ZREM', KEYS[5], ARGV[10])
elseif ARGV[11] ~= '' then
  redis.call('ZADD', KEYS[5], ARGV[11], ARGV[10])
end
-- ARGV[8] is 1 when the committing process is itself subscribed: it delivers to its own
-- sockets, so publishing only matters when some other process listens.  No channel
-- (ARGV[7] empty): the caller publishes once the commit is durable.
if ARGV[7] == '' then return {1, tonumber(ARGV[2]), ARGV[12]} end
local listeners = redis.call('PUBSUB', 'NUMSUB', ARGV[7])[2] - tonumber(ARGV[8])
if listeners > 0 then
  redis.call('PUBLISH', ARGV[7], struct.pack('>I4I4', 0, tonumber(ARGV[2])) .. ARGV[4])
end
return {1, tonumber(ARGV[2]), ARGV[12]}
