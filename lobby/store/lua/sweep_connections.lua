-- Remove the connections whose deadline has passed and return their JSON; a heartbeat that
-- lands first keeps its connection, since the check and the removal are one step.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local gone = {}
for _, id in ipairs(ids) do
  local data = redis.call('HGET', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  if data then table.insert(gone, data) end
end
return gone
