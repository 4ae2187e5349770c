--[[ rerun: included by put's add (not a script itself). A task that starts a new run drops the
  done run the queue's history kept of it (include: history; K.history and K.done), as it drops a
  kept outcome (include: outcomes): get and result answer the latest run, and a later run that
  leaves without a trace (purged, cancelled, expired) must not leave an earlier one answering
  'done'. ]]

-- Whether K.history exists, read once per call (nil: not read yet); a caller that has read it
-- already says so (knowHistory): a queue without history pays one EXISTS per call, not an HDEL per task.
local historyKnown = nil
local function knowHistory(known) historyKnown = known end

-- Task id starts a new run: the done run kept of it (and its kept log) is no longer what get,
-- result and logs answer.
local function dropDone(id)
  if historyKnown == nil then historyKnown = redis.call('EXISTS', K.history) == 1 end
  if historyKnown and redis.call('HDEL', K.history, id, id .. '|log') > 0 then redis.call('ZREM', K.done, id) end
end
