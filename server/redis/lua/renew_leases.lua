-- Renew a process's leases (lease.lua for many, on one Redis): KEYS the rooms' presence
-- keys, then the due set last; ARGV[1] when they lapse, then for each room its lease member
-- and its room id.  Returns how many were renewed.
local due = KEYS[#KEYS]
local lapses = ARGV[1]
for i = 1, #KEYS - 1 do
  redis.call('ZADD', KEYS[i], lapses, ARGV[2 * i])
  redis.call('ZADD', due, 'LT', lapses, ARGV[2 * i + 1])
end
return #KEYS - 1
