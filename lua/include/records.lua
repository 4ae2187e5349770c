--[[ records: included by the scripts that delete tasks. A task's records are its field in `tasks`
  (its record and payload, include: record), plus those its record says it has: progress (meta.pg), log lines
  (meta.lg) and its dependency list (meta.dl). A finished, cancelled or expired task leaves none. ]]
-- include: record, logs
local records = {}

-- Task id's decoded record (it must exist).
function records.load(C, id) return record.decode(redis.call('HGET', C.K.tasks, id)) end

-- Deletes the progress, logs and dependency list task id's record says it has (all three when
-- the record is not known: meta nil).
function records.forgetExtras(C, id, meta)
  if not meta or meta.pg then redis.call('HDEL', C.K.progress, id) end
  if not meta or meta.lg then logs.forgetLog(C, id) end
  if not meta or meta.dl then redis.call('HDEL', C.K.deplist, id) end
end

-- Deletes all of task id's records.
function records.forget(C, id, meta)
  redis.call('HDEL', C.K.tasks, id)
  records.forgetExtras(C, id, meta)
end
