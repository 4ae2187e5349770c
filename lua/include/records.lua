--[[ records: included by the scripts that delete tasks. A task's records are its field in `tasks`
  (its record and payload, include: record), plus those its record says it has: progress (meta.pg), log lines
  (meta.lg) and its dependency list (meta.dl). A finished, cancelled or expired task leaves none. ]]
-- include: record, logs

-- Task id's decoded record (it must exist).
local function load(id) return record.decode(redis.call('HGET', K.tasks, id)) end

-- Deletes the progress, logs and dependency list task id's record says it has (all three when
-- the record is not known: meta nil).
local function forgetExtras(id, meta)
  if not meta or meta.pg then redis.call('HDEL', K.progress, id) end
  if not meta or meta.lg then logs.forgetLog(C, id) end
  if not meta or meta.dl then redis.call('HDEL', K.deplist, id) end
end

-- Deletes all of task id's records.
local function forget(id, meta)
  redis.call('HDEL', K.tasks, id)
  forgetExtras(id, meta)
end
