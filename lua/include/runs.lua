--[[ runs: the rows of a queue's done history (written by include: history; read by get, list, result
  and logs; not a script itself). Each run of a task is a row of its own: the field '<run>|<id>' of
  the `history` HASH and the member '<run>|<id>' of the `done` ZSET, scored by its finish time.
  <run> is 12 hex digits from the queue's counter `order` in `counts`, one a finish (include: acks):
  rows that finished in one millisecond sort by member, so in finish order, and the count cap keeps
  the newest by it (a bare id would sort them by hash). The field '<id>' holds the <run> of the
  id's latest row, the one get, result and logs answer; a new run of the id (put: include: rerun)
  drops it, so a run that then leaves without a trace leaves no earlier one answering. A row's kept
  log is its field plus '|log'. Rows written before runs are a record at '<id>' itself (a record
  holds a newline, a run number none), member '<id>': read as they are, and dropped by the next
  run of their id, as they always were. ]]
local runs = {}

-- The task id a row's member (or field) `m` is of: what follows its run; a row from before runs is its id.
function runs.rowId(m) return string.match(m, '^%x+|(.+)$') or m end

-- The name of the field in the history that holds task id's latest run, or nil when none is kept;
-- and the row itself when that is what the field '<id>' held (a row from before runs). Task ids
-- hold no '|': a name with one is no task.
function runs.latestField(C, id)
  if string.find(id, '|', 1, true) then return nil end
  local run = redis.call('HGET', C.K.history, id)
  if not run then return nil end
  if string.find(run, '\n', 1, true) then return id, run end
  return run .. '|' .. id
end

-- The history's row of task id's latest run (record, newline, payload), or nil.
function runs.latestRun(C, id)
  local field, row = runs.latestField(C, id)
  if not field then return nil end
  return row or redis.call('HGET', C.K.history, field) or nil
end

-- Deletes the history's rows `rows` (their fields, as in the `done` ZSET), each with its kept log
-- (a field that is not there costs nothing), and the pointer of each id whose latest run is among
-- them.
function runs.dropRows(C, rows)
  local fields, ids = {}, {}
  for i, row in ipairs(rows) do
    table.insert(fields, row); table.insert(fields, row .. '|log')
    ids[i] = runs.rowId(row)
  end
  for i, run in ipairs(redis.call('HMGET', C.K.history, unpack(ids))) do
    if run and rows[i] == run .. '|' .. ids[i] then table.insert(fields, ids[i]) end
  end
  redis.call('HDEL', C.K.history, unpack(fields))
end
