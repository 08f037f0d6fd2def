-- Mark an account a bot account unless it has finished a game (KEYS: the account, its
-- history); 1 done (or already a bot), 0 no such account, -1 it has played.
local raw = redis.call('GET', KEYS[1])
if not raw then
  return 0
end
if redis.call('LLEN', KEYS[2]) > 0 then
  return -1
end
local account = cjson.decode(raw)
account['bot'] = true
redis.call('SET', KEYS[1], cjson.encode(account))
return 1
