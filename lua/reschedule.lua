#!lua
--[[ reschedule: move a pending (delayed, ready or waiting) task's run-at. A ready task moved into the
  future goes back to the delayed set; a delayed task moved to now or earlier becomes ready.
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, active, tasks, dead,
    wake, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped,
    gtags, parked, gactive, glimits, moved
  ARGV[1] id  task id
  ARGV[2] at  new run-at (epoch ms)
  Returns: { 'moved' }, or a refusal (include: refusals): { 'missing' }, { 'active', worker },
    { 'dead' } ]]
-- include: record, clock, wake, ready, refusals
local now = clock.now(C)
local id, at = A.id, tonumber(A.at)
local raw = redis.call('HGET', K.tasks, id)
local refused = refusals.refusal(C, id, raw, true)
if refused then return refused end
local meta = record.decode(raw)
local delayed = redis.call('ZSCORE', K.delayed, id)
-- The expiry window moves with the run-at: it counts from when the task becomes due.
meta.r = at
if meta.x then meta.e = at + meta.x end
if meta.a then
  -- Waiting on its dependencies (include: deps): it keeps waiting, and is queued for this run-at.
  redis.call('HSET', K.tasks, id, record.encode(meta))
  return { 'moved' }
end
local toWake = false
if at > now then
  if not delayed then ready.unqueue(C, id, meta, K.moved) end
  redis.call('ZADD', K.delayed, at, id)
  toWake = redis.call('ZRANGE', K.delayed, 0, 0)[1] == id
elseif delayed then
  redis.call('ZREM', K.delayed, id)
  ready.push(C, id, meta)
  toWake = true
end
redis.call('HSET', K.tasks, id, record.encode(meta))
if toWake then wake.wakeIdle(C) end
return { 'moved' }
