#!lua flags=allow-oom
--[[ fail: a held task's handler failed; retry it after a back-off, or make it dead when out of
  attempts. Refused when the caller no longer holds the lease (fencing).
  KEYS (as K.<name>; each described in docs/design.md#keys): active, delayed, ready, meta, dead,
    counts, wake, held, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8,
    ready9, grouped, gtags, parked, gactive, glimits, events, results, kept, data, progress,
    waiting, limits, blocked, after, dependents, deplist, settle, outbox, logs
  ARGV[1] id           task id
  ARGV[2] token        the lease token handed out by claim
  ARGV[3] retryIn      ms from the server's now until the retry
  ARGV[4] error        last error, kept for inspection
  ARGV[5] maxAttempts  overrides the task's own limit, or '' to keep it
  ARGV[6] events       most entries kept in the events stream; 0 for no events
  Returns: 'retry', 'dead', 'merged' (an until-start task whose identity already has a task
    waiting: deleted instead of retried) or 'lost'; ':carry' appended when the call left steps in
    the outbox for other queues (a dead task others wait on), for the client to carry at once ]]
-- include: levels
-- include: events
-- include: outcomes
-- include: identity
-- include: deps
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local id = ARGV[1]
local deadline = tonumber(redis.call('ZSCORE', K.active, id))
if not deadline or deadline <= now then return 'lost' end
local meta = cjson.decode(redis.call('HGET', K.meta, id))
if meta.t ~= ARGV[2] then return 'lost' end

redis.call('ZREM', K.active, id)
redis.call('ZREM', K.held, meta.w .. '|' .. id)
meta.t, meta.l, meta.w, meta.err = nil, nil, nil, ARGV[4]
-- Its group (if any) has a place again, which a parked task may take, or the queue a concurrency
-- slot: then a worker should look.
local wake = finished(meta) > 0 or redis.call('EXISTS', K.limits) == 1
local limit = ARGV[5] ~= '' and tonumber(ARGV[5]) or meta.m
local result = 'retry'
redis.call('HINCRBY', K.counts, 'failed', 1)
countNamed(K.counts, 'failed', meta)
-- (Not one that others wait on: they wait on this task, so it is retried.)
local into = meta.n < limit and not meta.dp and waitingCopy(id, meta)
if into then
  -- Its identity already has a task waiting, put while this one ran: that one does the work.
  redis.call('HDEL', K.data, id)
  redis.call('HDEL', K.meta, id)
  if meta.pg then redis.call('HDEL', K.progress, id) end
  if meta.lg then redis.call('HDEL', K.logs, id) end
  if meta.dl then redis.call('HDEL', K.deplist, id) end
  redis.call('HINCRBY', K.counts, 'merged', 1)
  emitFor(tonumber(ARGV[6]), meta, 'type', 'merged', 'id', id, 'attempt', meta.n, 'error', brief(meta.err), 'into', into)
  keepOutcome(id, meta, now, 'merged', into)
  if wake and redis.call('LLEN', K.wake) == 0 then redis.call('RPUSH', K.wake, '1') end
  return 'merged'
end
if meta.n >= limit then
  -- Kept for inspection and re-drive; claim trims the dead set by count and age.
  redis.call('ZADD', K.dead, now, id)
  redis.call('HINCRBY', K.counts, 'dead', 1)
  countNamed(K.counts, 'dead', meta)
  result = 'dead'
  emitFor(tonumber(ARGV[6]), meta, 'type', 'dead', 'id', id, 'attempt', meta.n, 'error', brief(meta.err))
  keepOutcome(id, meta, now, 'dead', meta.err)
  fire(id, meta, 'dead', now)
else
  emitFor(tonumber(ARGV[6]), meta, 'type', 'failed', 'id', id, 'attempt', meta.n, 'error', brief(meta.err))
  repoint(id, meta)
  meta.r = now + tonumber(ARGV[3])
  if meta.r <= now then
    push(id, meta)
    wake = true
  else
    redis.call('ZADD', K.delayed, meta.r, id)
    -- A new earliest run-at: an idle worker must re-arm its timer.
    wake = wake or redis.call('ZRANGE', K.delayed, 0, 0)[1] == id
  end
end
redis.call('HSET', K.meta, id, cjson.encode(meta))
-- The tasks that waited on it learn now (a batch; claims take the rest).
if stepped then drain(100, now, tonumber(ARGV[6])) end
if (wake or stepped) and redis.call('LLEN', K.wake) == 0 then redis.call('RPUSH', K.wake, '1') end
if outboxed then return result .. ':carry' end
return result
