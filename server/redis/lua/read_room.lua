-- Read a room in one step: its version, then (ARGV[1] == '1') its document and the
-- document's version, then its kept diffs.  A script rather than MULTI: one command, which a
-- cluster client sends again to the new master after a failover like any other.
local fields = {'version'}
if ARGV[1] == '1' then fields = {'version', 'doc', 'doc_version'} end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
return {stored, redis.call('LRANGE', KEYS[2], 0, -1)}
