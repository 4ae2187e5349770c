--[[ rerun: included by put's add (not a script itself). A task that starts a new run is no longer
  its done runs the queue's history kept (include: history, runs; C.K.history and C.K.done), as it drops
  a kept outcome (include: outcomes): get and result answer the latest run, and a later run that
  leaves without a trace (purged, cancelled, expired) must not leave an earlier one answering
  'done'. Its rows stay in the history (list), each its own run; its pointer to the latest goes. ]]
local rerun = {}

-- Whether C.K.history exists, read once per call (nil: not read yet); a caller that has read it
-- already says so (knowHistory): a queue without history pays one EXISTS per call, not an HDEL per task.
function rerun.knowHistory(C, known) C.historyKnown = known end

-- Task id starts a new run: its latest done run is no longer what get, result and logs answer. The
-- field '<id>' is that run's pointer, or a row written before runs (with its log and member, which go).
function rerun.dropDone(C, id)
  if C.historyKnown == nil then C.historyKnown = redis.call('EXISTS', C.K.history) == 1 end
  if C.historyKnown and redis.call('HDEL', C.K.history, id, id .. '|log') > 0 then redis.call('ZREM', C.K.done, id) end
end
