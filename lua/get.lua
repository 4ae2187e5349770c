#!lua flags=no-writes
--[[ get: read one task and the state it is in, in one consistent view.
  KEYS (as K.<name>; each described in docs/design.md#keys): tasks, delayed, active, dead, progress,
    blocked, history
  ARGV[1] id       task id
  ARGV[2] history  '1' to read only the task's entry in the history (runAgain), else ''
  Returns: { payload, meta JSON, state, progress JSON or false } or false for an unknown task; a
    task kept in the history once done (include: history) is 'done', with no progress ]]
-- include: record, runs
local id = A.id
local raw = A.history ~= '1' and redis.call('HGET', K.tasks, id)
if not raw then
  -- The live record wins: a task put again after it finished is its new run. Else its latest
  -- done run (include: runs).
  local kept = runs.latestRun(C, id)
  if not kept then return false end
  local meta, payload = record.split(kept)
  return { payload, meta, 'done', false }
end
local meta, payload = record.split(raw)
-- A task that is not ready is in exactly one of the four sorted sets read below. A ready one is
-- on its level's ready list, in grouped or in parked; it is not looked for there, because a ready
-- list may also hold ghosts (entries a moved task left behind; see lua/include/levels.lua), so an
-- entry proves nothing, and finding one would cost an O(N) LPOS. A task in none of the four is
-- ready.
local state = 'ready'
if redis.call('ZSCORE', K.delayed, id) then state = 'delayed'
elseif redis.call('ZSCORE', K.active, id) then state = 'active'
elseif redis.call('ZSCORE', K.dead, id) then state = 'dead'
elseif redis.call('ZSCORE', K.blocked, id) then state = 'waiting' end
return { payload, meta, state, redis.call('HGET', K.progress, id) }
