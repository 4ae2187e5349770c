--[[ refusals: included by the scripts that change one task for a caller (reschedule, priority,
  cancel, redrive). They answer why they left a task alone, so callers report the script's own
  reason and never read the task again to guess (a read that would race with the change it reports):
  { 'missing' }          no such task (never put, finished, expired, purged)
  { 'active', worker }   leased: its worker finishes or fails it (worker '' if not recorded)
  { 'dead' }             out of attempts; only when the script refuses dead tasks (cancel takes them)
  { 'pending' }          redrive's own: the task waits to run (delayed, ready, waiting), not dead ]]
-- include: record
local refusals = {}

-- The refusal for task id (its record `raw`, or nil), or nil when the change may go ahead.
function refusals.refusal(C, id, raw, refuseDead)
  if not raw then return { 'missing' } end
  if redis.call('ZSCORE', C.K.active, id) then return { 'active', record.peek(raw).w or '' } end
  if refuseDead and redis.call('ZSCORE', C.K.dead, id) then return { 'dead' } end
  return nil
end
