-- Check and count one creation against its limits, all or nothing: KEYS are, for each limited
-- player, their live games' set and their started zset, then the address's zset if there is
-- one; returns {0, 0}, or {1, i} (player i has too many games in progress), {2, i} (player i
-- started too many lately), {3, 0} (the address made too many lately).
local now, since, member = ARGV[1], ARGV[2], ARGV[3]
local players, window = tonumber(ARGV[4]), ARGV[8]
for i = 1, players do
  redis.call('ZREMRANGEBYSCORE', KEYS[2 * i], '-inf', since)
  if redis.call('SCARD', KEYS[2 * i - 1]) >= tonumber(ARGV[5]) then return {1, i} end
  if redis.call('ZCARD', KEYS[2 * i]) >= tonumber(ARGV[6]) then return {2, i} end
end
local address = KEYS[2 * players + 1]
if address then
  redis.call('ZREMRANGEBYSCORE', address, '-inf', since)
  if redis.call('ZCARD', address) >= tonumber(ARGV[7]) then return {3, 0} end
end
for i = 1, players do
  redis.call('ZADD', KEYS[2 * i], now, member)
  redis.call('EXPIRE', KEYS[2 * i], window)
end
if address then
  redis.call('ZADD', address, now, member)
  redis.call('EXPIRE', address, window)
end
return {0, 0}
