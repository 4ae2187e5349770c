--[[ attempt: the end of an attempt that did not succeed, one rule for both ways it happens: the
  handler failed (fail) or the lease lapsed (claim). The lease is cleared and the attempt counted as
  failed; then the task is merged into its identity's waiting twin (an until-start task put again
  while it ran: that one does the work, and the tasks waiting on this one wait on it instead, so
  there are never two copies waiting), made dead when out of attempts (kept for inspection and
  re-drive; claim trims the dead set by count and age), or retried: ready now, or delayed until
  `retryAt`. Needs the includes events, outcomes, identity, deps and records before it. ]]
-- include: record
-- include: ready

-- Ends task id's attempt (meta: its decoded record) with error `err`; `maxAttempts` is its
-- most attempts, `retryAt` when a retry runs (nil: at once, keeping its run-at), `cap` the events cap.
-- Returns the outcome ('merged', 'dead' or 'retry'), how many parked tasks of its group moved back,
-- and whether an idle worker should look (the task is ready again, or is the new earliest run-at).
local function endAttempt(id, meta, err, maxAttempts, retryAt, now, cap)
  redis.call('ZREM', K.active, id)
  if meta.w then redis.call('ZREM', K.held, meta.w .. '|' .. id) end
  meta.t, meta.l, meta.w, meta.err = nil, nil, nil, err
  local refilled = finished(meta)
  redis.call('HINCRBY', K.counts, 'failed', 1)
  countNamed(K.counts, 'failed', meta)
  local into = meta.n < maxAttempts and waitingCopy(id, meta)
  if into then
    forget(id, meta)
    redis.call('HINCRBY', K.counts, 'merged', 1)
    emitFor(cap, meta, 'type', 'merged', 'id', id, 'attempt', meta.n, 'error', brief(err), 'into', into)
    keepOutcome(id, meta, now, 'merged', into)
    -- Tasks that waited on this one wait on the copy now: it does the work they waited for.
    fire(id, meta, 'merged', now, into)
    return 'merged', refilled, false
  end
  local outcome, wake = 'retry', false
  if meta.n >= maxAttempts then
    outcome = 'dead'
    redis.call('ZADD', K.dead, now, id)
    redis.call('HINCRBY', K.counts, 'dead', 1)
    countNamed(K.counts, 'dead', meta)
    emitFor(cap, meta, 'type', 'dead', 'id', id, 'attempt', meta.n, 'error', brief(err))
    keepOutcome(id, meta, now, 'dead', err)
    fire(id, meta, 'dead', now)
  else
    emitFor(cap, meta, 'type', 'failed', 'id', id, 'attempt', meta.n, 'error', brief(err))
    repoint(id, meta)
    if retryAt then meta.r = retryAt end
    if not retryAt or retryAt <= now then
      push(id, meta)
      wake = true
    else
      redis.call('ZADD', K.delayed, meta.r, id)
      -- A new earliest run-at: an idle worker must re-arm its timer.
      wake = redis.call('ZRANGE', K.delayed, 0, 0)[1] == id
    end
  end
  redis.call('HSET', K.tasks, id, encode(meta))
  return outcome, refilled, wake
end
