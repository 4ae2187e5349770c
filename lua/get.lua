#!lua flags=no-writes
--[[ get: read one task and the state it is in, in one consistent view.
  KEYS (as K.<name>; each described in docs/design.md#keys): tasks, delayed, active, dead, progress,
    blocked
  ARGV[1] id  task id
  Returns: { payload, meta JSON, state, progress JSON or false } or false for an unknown task ]]
-- include: record
local id = ARGV[1]
local raw = redis.call('HGET', K.tasks, id)
if not raw then return false end
local meta, payload = split(raw)
-- Every task is in exactly one structure; the one that is not a sorted set is the ready list.
local state = 'ready'
if redis.call('ZSCORE', K.delayed, id) then state = 'delayed'
elseif redis.call('ZSCORE', K.active, id) then state = 'active'
elseif redis.call('ZSCORE', K.dead, id) then state = 'dead'
elseif redis.call('ZSCORE', K.blocked, id) then state = 'waiting' end
return { payload, meta, state, redis.call('HGET', K.progress, id) }
