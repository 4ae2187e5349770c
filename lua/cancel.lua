#!lua flags=allow-oom
--[[ cancel: delete a delayed, ready, waiting or dead task. An active task is left to its worker.
  The tasks waiting on it learn that it was cancelled; a waiting task leaves the lists of the
  tasks it waited on (include: deps).
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, active, tasks, dead,
    levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags,
    parked, gactive, glimits, events, results, kept, progress, redirects, counts, wake, blocked,
    after, dependents, deplist, settle, outbox, logs, moved
  ARGV[1] id      task id
  ARGV[2] events  most entries kept in the events stream; 0 for no events
  Returns: { 'cancelled', outboxed }: outboxed 1 when that made steps for other queues, or left
    steps in `settle` past its batch (a failure down a long chain), for the caller to carry, else
    0; or a refusal (include: refusals): { 'missing' }, { 'active', worker } ]]
-- include: clock
-- include: wake
-- include: ready
-- include: refusals
-- include: events
-- include: outcomes
-- include: identity
-- include: deps
-- include: settle
-- include: records
local id = A.id
local raw = redis.call('HGET', K.tasks, id)
local refused = refusal(id, raw, false)
if refused then return refused end
local meta = decode(raw)
if redis.call('ZREM', K.dead, id) == 0 then
  -- A pending task ends here: its outcome is 'cancelled'. (A dead one's outcome was kept when it died.)
  local now = nowMs()
  if meta.a then unwait(id, now) elseif redis.call('ZREM', K.delayed, id) == 0 then unqueue(id, meta, K.moved) end
  unpoint(id, meta)
  fire(id, meta, 'cancelled', now)
  if meta.n > 0 then emitFor(tonumber(A.events), meta, 'type', 'cancelled', 'id', id, 'attempt', meta.n) else emitFor(tonumber(A.events), meta, 'type', 'cancelled', 'id', id) end
  keepOutcome(id, meta, now, 'cancelled')
end
forget(id, meta)
if stepped then
  -- The tasks that waited on it learn now (a batch; the client carries on with the rest).
  drain(100, nowMs(), tonumber(A.events))
  wakeIdle()
end
return { 'cancelled', toCarry() and 1 or 0 }
