--[[ sweep: included by clean (not a script itself): what becomes of one pending task it reads.
  Whether it is to go (doomed: put at or before `before`), its going as cancel's (drop: a group
  whose head it held goes on, include: heads), and the walk over a slice of entries that stops
  once `most` are deleted (walk), counting what it deleted (deletedCount) and the parked tasks
  that moved back (refilled). Uses clean's `before`, `most`, `now` and `cap` (declared before it). ]]
-- include: deps, records, record, heads, events, outcomes, identity

-- How many tasks this call deleted; how many parked tasks the groups it let go on moved back.
local deleted, refilled = 0, 0
local function deletedCount() return deleted end
local function refilledCount() return refilled end

-- The task's meta when it is to go: it has a record, put at or before `before`.
local function doomed(id)
  local raw = redis.call('HGET', K.tasks, id)
  if not raw then return nil end
  local meta = record.decode(raw)
  if before >= 0 and (meta.c or 0) > before then return nil end
  return meta
end

-- A pending task, already out of its list, ends as cancel ends it.
local function drop(id, meta)
  identity.unpoint(C, id, meta)
  deps.fire(C, id, meta, 'cancelled', now)
  if meta.n > 0 then events.emitFor(C, cap, meta, 'type', 'cancelled', 'id', id, 'attempt', meta.n) else events.emitFor(C, cap, meta, 'type', 'cancelled', 'id', id) end
  outcomes.keepOutcome(C, id, meta, now, 'cancelled')
  -- It held its ordered group's head (waiting for a retry, snoozed, or back ready): the group goes on.
  refilled = refilled + heads.dropHead(C, id, meta)
  records.forget(C, id, meta)
  deleted = deleted + 1
end

-- Walks `entries` (flat, `step` values per entry) until `most` are deleted; `take(i)` deletes
-- entry i when it is to go and says whether it did. Returns how many were examined.
local function walk(entries, step, take)
  local n = 0
  for i = 1, #entries, step do
    if deleted >= most then break end
    n = n + 1
    take(i)
  end
  return n
end
