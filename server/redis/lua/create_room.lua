-- Create a room (its document and version, and its mark in the lobby's outbox) unless one
-- has this id; returns whether it was created.
if redis.call('HSETNX', KEYS[1], 'doc', ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'doc_version', ARGV[1])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
return 1
