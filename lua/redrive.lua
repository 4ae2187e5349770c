#!lua
--[[ redrive: send dead tasks back to the ready list with their attempts reset: one task, or
  the oldest deaths first in a batch.
  KEYS (as K.<name>; each described in docs/design.md#keys): dead, ready, tasks, wake, levels,
    ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags, parked,
    gactive, glimits
  ARGV[1] id     the task to re-drive, or '' for a batch of the oldest
  ARGV[2] limit  most tasks in a batch
  Returns: how many tasks went back to ready ]]
-- include: record
-- include: clock
-- include: wake
-- include: levels
local now = nowMs()
local ids
if ARGV[1] ~= '' then
  ids = redis.call('ZSCORE', K.dead, ARGV[1]) and { ARGV[1] } or {}
else
  ids = redis.call('ZRANGE', K.dead, 0, tonumber(ARGV[2]) - 1)
end
for _, id in ipairs(ids) do
  local meta = decode(redis.call('HGET', K.tasks, id))
  -- A fresh start: all its attempts again, due now, and a new expiry window if it had one.
  meta.n, meta.r = 0, now
  if meta.x then meta.e = now + meta.x end
  redis.call('ZREM', K.dead, id)
  redis.call('HSET', K.tasks, id, encode(meta))
  push(id, meta)
end
if #ids > 0 then wakeIdle() end
return #ids
