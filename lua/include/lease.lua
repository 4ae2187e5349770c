--[[ lease: included by every script that acts for the holder of a lease (extend, fail, release,
  log, progress; claim's acks use `live` on values it reads in bulk). Fencing: a lease counts while
  its deadline, on the Redis clock, is still ahead and the task's record carries the very token
  claim handed out. A lapsed lease, or one a later claim replaced, can no longer act. ]]
-- include: record
local lease = {}

-- Whether a lease with this deadline (a ZSCORE reply) and record (decoded, or nil) is `token`'s at `now`.
function lease.live(deadline, meta, token, now)
  return deadline ~= nil and deadline ~= false and tonumber(deadline) > now and meta ~= nil and meta.t == token
end

-- Task id's decoded record when `token` holds its live lease at `now`, else nil.
function lease.held(C, id, token, now)
  local deadline = redis.call('ZSCORE', C.K.active, id)
  if not deadline then return nil end
  local raw = redis.call('HGET', C.K.tasks, id)
  local meta = raw and record.decode(raw)
  if not lease.live(deadline, meta, token, now) then return nil end
  return meta
end
