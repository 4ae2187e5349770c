--[[ rerun: included by put's add (not a script itself). A task that starts a new run is no longer
  its done runs the queue's history kept (include: history, runs; K.history and K.done), as it drops
  a kept outcome (include: outcomes): get and result answer the latest run, and a later run that
  leaves without a trace (purged, cancelled, expired) must not leave an earlier one answering
  'done'. Its rows stay in the history (list), each its own run; its pointer to the latest goes. ]]

-- Whether K.history exists, read once per call (nil: not read yet); a caller that has read it
-- already says so (knowHistory): a queue without history pays one EXISTS per call, not an HDEL per task.
local historyKnown = nil
local function knowHistory(known) historyKnown = known end

-- Task id starts a new run: its latest done run is no longer what get, result and logs answer. The
-- field '<id>' is that run's pointer, or a row written before runs (with its log and member, which go).
local function dropDone(id)
  if historyKnown == nil then historyKnown = redis.call('EXISTS', K.history) == 1 end
  if historyKnown and redis.call('HDEL', K.history, id, id .. '|log') > 0 then redis.call('ZREM', K.done, id) end
end
