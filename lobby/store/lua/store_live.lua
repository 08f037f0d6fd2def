-- Write live lines, each unless its game is finished or a newer line of its room is stored
-- (a slow writer never puts back an older state, nor a finished game).
-- KEYS[1] the live-games zset, then four keys a line: its live line, its finished game, and
-- both players' playing sets.  ARGV: four values a line: the line's JSON, its version, its
-- room id and its start time.  Returns 1 for each line written, 0 for each left.
local written = {}
for line = 0, (#KEYS - 1) / 4 - 1 do
  local k, a = 1 + 4 * line, 4 * line
  local stored = 0
  if redis.call('EXISTS', KEYS[k + 2]) == 0 then
    local old = redis.call('GET', KEYS[k + 1])
    if not (old and (cjson.decode(old)['version'] or 0) > tonumber(ARGV[a + 2])) then
      redis.call('SET', KEYS[k + 1], ARGV[a + 1])
      redis.call('ZADD', KEYS[1], ARGV[a + 4], ARGV[a + 3])
      redis.call('SADD', KEYS[k + 3], ARGV[a + 3])
      redis.call('SADD', KEYS[k + 4], ARGV[a + 3])
      stored = 1
    end
  end
  written[line + 1] = stored
end
return written
