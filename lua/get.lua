#!lua flags=no-writes
--[[ get: read one task and the state it is in, in one consistent view.
  KEYS[1] <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[2] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[3] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[4] <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[5] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[6] <prefix>:{<queue>}:progress HASH  task id -> JSON progress its handler reported
  KEYS[7] <prefix>:{<queue>}:blocked  ZSET  member = task id waiting on its dependencies, score = when put (ms) (include: deps)
  ARGV[1] id  task id
  Returns: { payload, meta JSON, state, progress JSON or false } or false for an unknown task ]]
local id = ARGV[1]
local meta = redis.call('HGET', KEYS[2], id)
if not meta then return false end
-- Every task is in exactly one structure; the one that is not a sorted set is the ready list.
local state = 'ready'
if redis.call('ZSCORE', KEYS[3], id) then state = 'delayed'
elseif redis.call('ZSCORE', KEYS[4], id) then state = 'active'
elseif redis.call('ZSCORE', KEYS[5], id) then state = 'dead'
elseif redis.call('ZSCORE', KEYS[7], id) then state = 'waiting' end
return { redis.call('HGET', KEYS[1], id), meta, state, redis.call('HGET', KEYS[6], id) }
