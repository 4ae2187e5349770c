#!lua flags=allow-oom
--[[ cancel: delete a delayed, ready, waiting or dead task. An active task is left to its worker.
  The tasks waiting on it learn that it was cancelled; a waiting task leaves the lists of the
  tasks it waited on (include: deps).
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, active, data, meta,
    dead, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9,
    grouped, gtags, parked, gactive, glimits, events, results, kept, progress, waiting, counts,
    wake, blocked, after, dependents, deplist, settle, outbox, logs, moved
  ARGV[1] id      task id
  ARGV[2] events  most entries kept in the events stream; 0 for no events
  Returns: 1 when deleted (2 when that made steps for other queues, for the caller to carry), 0
    for an active or unknown task ]]
-- include: levels
-- include: events
-- include: outcomes
-- include: identity
-- include: deps
local id = ARGV[1]
local raw = redis.call('HGET', K.meta, id)
if not raw or redis.call('ZSCORE', K.active, id) then return 0 end
local meta = cjson.decode(raw)
if redis.call('ZREM', K.dead, id) == 0 then
  -- A pending task ends here: its outcome is 'cancelled'. (A dead one's outcome was kept when it died.)
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  if meta.a then unwait(id, now) elseif redis.call('ZREM', K.delayed, id) == 0 then unqueue(id, meta, K.moved) end
  unpoint(id, meta)
  fire(id, meta, 'cancelled', now)
  if meta.n > 0 then emitFor(tonumber(ARGV[2]), meta, 'type', 'cancelled', 'id', id, 'attempt', meta.n) else emitFor(tonumber(ARGV[2]), meta, 'type', 'cancelled', 'id', id) end
  keepOutcome(id, meta, now, 'cancelled')
end
redis.call('HDEL', K.data, id)
redis.call('HDEL', K.meta, id)
if meta.pg then redis.call('HDEL', K.progress, id) end
if meta.lg then redis.call('HDEL', K.logs, id) end
if meta.dl then redis.call('HDEL', K.deplist, id) end
if stepped then
  -- The tasks that waited on it learn now (a batch; claims take the rest).
  local t = redis.call('TIME')
  drain(100, t[1] * 1000 + math.floor(t[2] / 1000), tonumber(ARGV[2]))
  if redis.call('LLEN', K.wake) == 0 then redis.call('RPUSH', K.wake, '1') end
end
if outboxed then return 2 end
return 1
