--[[ attempt: the end of an attempt that did not succeed, one rule for both ways it happens: the
  handler failed (fail) or the lease lapsed (claim). The lease is cleared and the attempt counted as
  failed; then the task is merged into its identity's waiting twin (an until-start task put again
  while it ran: that one does the work, and the tasks waiting on this one wait on it instead, so
  there are never two copies waiting), made dead when out of attempts (kept for inspection and
  re-drive; claim trims the dead set by count and age), or retried: ready now, or delayed until
  `retryAt`. Needs the includes events, outcomes, identity, deps and records before it. ]]
-- include: deps, records, record, ready, minutes, deadcaps, events, outcomes, controls, groups
-- include: identity
local attempt = {}

-- Ends task id's attempt (meta: its decoded record) with error `err`; `maxAttempts` is its
-- most attempts, `retryAt` when a retry runs (nil: at once, keeping its run-at), `cap` the events cap,
-- `ending` how the attempt ended (nil: 'failed'; else 'unrecoverable' or 'retry-later'): kept as
-- meta.en, carried by the failed and dead events, and in a kept dead outcome's state ('dead:<ending>');
-- `life` true to write the `retrying` lifecycle event of a retry (events: 'all').
-- Returns the outcome ('merged', 'dead' or 'retry'), how many parked tasks of its group moved back,
-- and whether an idle worker should look (the task is ready again, or is the new earliest run-at).
function attempt.endAttempt(C, id, meta, err, maxAttempts, retryAt, now, cap, ending, life)
  ending = ending or 'failed'
  redis.call('ZREM', C.K.active, id)
  if meta.w then redis.call('ZREM', C.K.held, meta.w .. '|' .. id) end
  meta.t, meta.l, meta.w, meta.err = nil, nil, nil, err
  -- The usual ending is left out of the record, as the usual attempts are.
  if ending == 'failed' then meta.en = nil else meta.en = ending end
  redis.call('HINCRBY', C.K.counts, 'failed', 1)
  events.countNamed(C.K.counts, 'failed', meta)
  local into = meta.n < maxAttempts and identity.waitingCopy(C, id, meta)
  -- An ordered group's head that runs again keeps its group's place (include: controls).
  if not into then controls.holdHead(C, id, meta, meta.n >= maxAttempts) end
  local refilled = groups.finished(C, meta)
  if into then
    records.forget(C, id, meta)
    redis.call('HINCRBY', C.K.counts, 'merged', 1)
    events.emitFor(C, cap, meta, 'type', 'merged', 'id', id, 'attempt', meta.n, 'error', events.brief(err), 'into', into)
    outcomes.keepOutcome(C, id, meta, now, 'merged', into)
    -- Tasks that waited on this one wait on the copy now: it does the work they waited for.
    deps.fire(C, id, meta, 'merged', now, into)
    return 'merged', refilled, false
  end
  local outcome, toWake = 'retry', false
  if meta.n >= maxAttempts then
    outcome = 'dead'
    redis.call('ZADD', C.K.dead, now, id)
    redis.call('HINCRBY', C.K.counts, 'dead', 1)
    events.countNamed(C.K.counts, 'dead', meta)
    minutes.countMinute(C, 'd', 1, now)
    events.emitFor(C, cap, meta, 'type', 'dead', 'id', id, 'attempt', meta.n, 'error', events.brief(err), 'ending', ending)
    outcomes.keepOutcome(C, id, meta, now, ending == 'failed' and 'dead' or 'dead:' .. ending, err)
    deps.fire(C, id, meta, 'dead', now)
    -- Its own dead caps (put's `keep`, include: deadcaps): not kept at all, or the dead set trimmed.
    -- A group held by it (not kept) or by a dead task the trim took goes on (include: heads).
    if meta.kp then
      local gone, moved = deadcaps.keepDead(C, id, meta, now)
      refilled = refilled + moved
      if gone then return outcome, refilled, false end
    end
  else
    events.emitFor(C, cap, meta, 'type', 'failed', 'id', id, 'attempt', meta.n, 'error', events.brief(err), 'ending', ending)
    minutes.countMinute(C, 'f', 1, now)
    identity.repoint(C, id, meta)
    if retryAt then meta.r = retryAt end
    if not retryAt or retryAt <= now then
      ready.push(C, id, meta)
      toWake = true
    else
      redis.call('ZADD', C.K.delayed, meta.r, id)
      -- A new earliest run-at: an idle worker must re-arm its timer.
      toWake = redis.call('ZRANGE', C.K.delayed, 0, 0)[1] == id
    end
    -- `life` (events: 'all'): the retry's run-at, which the failed event does not carry.
    events.emitLife(C, life, cap, meta, 'type', 'retrying', 'id', id, 'attempt', meta.n, 'runAt', meta.r, 'ending', ending)
  end
  redis.call('HSET', C.K.tasks, id, record.encode(meta))
  return outcome, refilled, toWake
end
