--[[ records: included by the scripts that delete tasks. A task's records are its payload (`data`)
  and its record (`meta`), plus those its record says it has: progress (meta.pg), log lines
  (meta.lg) and its dependency list (meta.dl). A finished, cancelled or expired task leaves none. ]]

-- Task id's decoded record (it must exist).
local function load(id) return cjson.decode(redis.call('HGET', K.meta, id)) end

-- Deletes the progress, logs and dependency list task id's record says it has (all three when
-- the record is not known: meta nil).
local function forgetExtras(id, meta)
  if not meta or meta.pg then redis.call('HDEL', K.progress, id) end
  if not meta or meta.lg then redis.call('HDEL', K.logs, id) end
  if not meta or meta.dl then redis.call('HDEL', K.deplist, id) end
end

-- Deletes all of task id's records.
local function forget(id, meta)
  redis.call('HDEL', K.data, id)
  redis.call('HDEL', K.meta, id)
  forgetExtras(id, meta)
end
