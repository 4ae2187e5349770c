--[[ sweep: included by clean (not a script itself): what becomes of one pending task it reads.
  Whether it is to go (doomed: put at or before `before`), its going as cancel's (drop: a group
  whose head it held goes on, include: heads), and the walk over a slice of entries that stops
  once `most` are deleted (walk), counting what it deleted (deletedCount) and the parked tasks
  that moved back (refilled). clean hands it its `before`, `most` and `cap` in C.sweep (start). ]]
-- include: deps, records, record, heads, events, outcomes, identity
local sweep = {}

-- The call's sweep: clean's bounds and event cap, how many tasks it deleted, and how many parked
-- tasks the groups it let go on moved back.
function sweep.start(C, before, most, cap) C.sweep = { before = before, most = most, cap = cap, deleted = 0, refilled = 0 } end
function sweep.deletedCount(C) return C.sweep.deleted end
function sweep.refilledCount(C) return C.sweep.refilled end

-- The task's meta when it is to go: it has a record, put at or before `before`.
function sweep.doomed(C, id)
  local raw = redis.call('HGET', C.K.tasks, id)
  if not raw then return nil end
  local meta = record.decode(raw)
  if C.sweep.before >= 0 and (meta.c or 0) > C.sweep.before then return nil end
  return meta
end

-- A pending task, already out of its list, ends as cancel ends it.
function sweep.drop(C, id, meta)
  local now, cap, swept = C.now, C.sweep.cap, C.sweep
  identity.unpoint(C, id, meta)
  deps.fire(C, id, meta, 'cancelled', now)
  if meta.n > 0 then events.emitFor(C, cap, meta, 'type', 'cancelled', 'id', id, 'attempt', meta.n) else events.emitFor(C, cap, meta, 'type', 'cancelled', 'id', id) end
  outcomes.keepOutcome(C, id, meta, now, 'cancelled')
  -- It held its ordered group's head (waiting for a retry, snoozed, or back ready): the group goes on.
  swept.refilled = swept.refilled + heads.dropHead(C, id, meta)
  records.forget(C, id, meta)
  swept.deleted = swept.deleted + 1
end

-- Whether the call has deleted its `most`: a walk over the entries it read stops there.
function sweep.full(C) return C.sweep.deleted >= C.sweep.most end
