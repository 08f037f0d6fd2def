-- Keeps a push subscription (KEYS[1] the player's devices; ARGV: endpoint, subscription
-- JSON, most devices): 1 kept (replacing the same endpoint's), 0 the player has the most.
local known = redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1
if known or redis.call('HLEN', KEYS[1]) < tonumber(ARGV[3]) then
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
    return 1
end
return 0
