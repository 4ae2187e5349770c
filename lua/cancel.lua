#!lua flags=allow-oom
--[[ cancel: delete a delayed, ready, waiting or dead task. An active task is left to its worker,
  unless `running`: then it is marked (include: cancels) and its holder's next beat ends it.
  The tasks waiting on it learn that it was cancelled; a waiting task leaves the lists of the
  tasks it waited on (include: deps).
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, active, tasks, dead,
    levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags,
    parked, gactive, glimits, events, results, kept, progress, redirects, counts, wake, blocked,
    after, dependents, deplist, settle, outbox, logs, moved, held, cancels
  ARGV[1] id       task id
  ARGV[2] events   most entries kept in the events stream; 0 for no events
  ARGV[3] running  1 to cancel an active task too (its holder stops it at its next beat), else 0
  Returns: { 'cancelled', outboxed }: outboxed 1 when that made steps for other queues, or left
    steps in `settle` past its batch (a failure down a long chain), for the caller to carry, else
    0; { 'stopping', worker }: an active task marked (or marked already) for its holder `worker`
    ('' if not recorded) to stop; or a refusal (include: refusals): { 'missing' }, { 'active', worker } ]]
-- include: clock, wake, ready, refusals, events, outcomes, identity, deps, settle, records, cancels
-- include: heads, record
local id = A.id
local raw = redis.call('HGET', K.tasks, id)
if raw and A.running == '1' and redis.call('ZSCORE', K.active, id) then
  -- Running: the holder's lease token goes now, so its late ack or fail is refused; the task ends
  -- at the holder's next beat, or when its lease lapses if the holder died. Asked twice: as once.
  local meta = record.decode(raw)
  if meta.cx then return { 'stopping', meta.w or '' } end
  return { 'stopping', cancels.markCancel(C, id, meta, clock.now(C)) }
end
local refused = refusals.refusal(C, id, raw, false)
if refused then return refused end
local meta = record.decode(raw)
if redis.call('ZREM', K.dead, id) == 0 then
  -- A pending task ends here: its outcome is 'cancelled'. (A dead one's outcome was kept when it died.)
  local now = clock.now(C)
  if meta.a then deps.unwait(C, id, now) elseif redis.call('ZREM', K.delayed, id) == 0 then ready.unqueue(C, id, meta, K.moved) end
  identity.unpoint(C, id, meta)
  deps.fire(C, id, meta, 'cancelled', now)
  redis.call('HINCRBY', K.counts, 'cancelled', 1)
  if meta.n > 0 then events.emitFor(C, tonumber(A.events), meta, 'type', 'cancelled', 'id', id, 'attempt', meta.n) else events.emitFor(C, tonumber(A.events), meta, 'type', 'cancelled', 'id', id) end
  outcomes.keepOutcome(C, id, meta, now, 'cancelled')
end
-- It held its ordered group's head (waiting for a retry, or dead): the group goes on.
if heads.dropHead(C, id, meta) > 0 then wake.wakeIdle(C) end
records.forget(C, id, meta)
if C.stepped then
  -- The tasks that waited on it learn now (a batch; the client carries on with the rest).
  settle.drain(C, 100, clock.now(C), tonumber(A.events))
  wake.wakeIdle(C)
end
return { 'cancelled', deps.toCarry(C) and 1 or 0 }
