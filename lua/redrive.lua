#!lua
--[[ redrive: send dead tasks back to the ready list with their attempts reset: one task, or
  the oldest deaths first in a batch. One task that is not dead is refused, with why.
  KEYS (as K.<name>; each described in docs/design.md#keys): dead, ready, tasks, wake, levels,
    ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags, parked,
    gactive, glimits, active
  ARGV[1] id    the task to re-drive, or '' for a batch of the oldest
  ARGV[2] most  most tasks in a batch
  Returns: { 'redriven', how many went back to ready } (a batch: 0 to most; one task: 1), or for
    one task a refusal (include: refusals): { 'missing' }, { 'active', worker }, or { 'pending' }
    (it waits to run: delayed, ready or waiting on its dependencies, so not dead) ]]
-- include: record, clock, wake, ready, refusals
local now = clock.now(C)
local ids
if A.id ~= '' then
  local id = A.id
  -- Not dead: the answer says why, in the same step (no caller reads the task again to guess).
  if not redis.call('ZSCORE', K.dead, id) then
    return refusals.refusal(C, id, redis.call('HGET', K.tasks, id), false) or { 'pending' }
  end
  ids = { id }
else
  ids = redis.call('ZRANGE', K.dead, 0, tonumber(A.most) - 1)
end
for _, id in ipairs(ids) do
  local meta = record.decode(redis.call('HGET', K.tasks, id))
  -- A fresh start: all its attempts again, due now, and a new expiry window if it had one.
  meta.n, meta.r = 0, now
  if meta.x then meta.e = now + meta.x end
  redis.call('ZREM', K.dead, id)
  redis.call('HSET', K.tasks, id, record.encode(meta))
  ready.push(C, id, meta)
end
if #ids > 0 then wake.wakeIdle(C) end
return { 'redriven', #ids }
