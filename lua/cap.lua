#!lua flags=allow-oom
--[[ cap: set or remove a queue-wide limit (for now: the most tasks leased at once), then wake an
  idle worker, since a raised or removed limit may let it lease. Allowed on a full Redis: raising a
  limit is how an operator lets a queue drain.
  KEYS[1] <prefix>:{<queue>}:limits   HASH  queue-wide limits: field 'concurrency' -> most leased tasks at once
  KEYS[2] <prefix>:{<queue>}:wake     LIST  wake-up tokens for idle workers (at most one)
  ARGV[1] name   the limit: 'concurrency'
  ARGV[2] value  the new limit, or '' to remove it
  Returns: 1 ]]
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
if redis.call('LLEN', KEYS[2]) == 0 then redis.call('RPUSH', KEYS[2], '1') end
return 1
