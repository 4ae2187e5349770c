#!lua flags=allow-oom
--[[ apply: apply dependency steps a client carried over from another queue's outbox (include:
  deps): settle a waiting task's dependency, register a task of another queue as waiting on one of
  this queue, or forget such a registration. Each step is idempotent, so a step carried twice (its
  carrier died before it could say so) changes nothing the second time. Then a batch of the steps
  waiting in this queue's `settle`: those these made, or those a client carries on with (lib/features/deps.ts
  calls it with no step until none is left: a failure down a long chain needs no worker).
  KEYS (as K.<name>; each described in docs/design.md#keys): tasks, delayed, ready, dead, counts,
    wake, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped,
    gtags, parked, gactive, glimits, events, results, kept, progress, redirects, blocked, after,
    dependents, deplist, settle, outbox, logs
  ARGV[1] events  most entries kept in the events stream; 0 for no events
  ARGV[+1] step   a step for this queue, as JSON (include: deps)
  Returns: { steps left in `settle`, when this queue's outbox has steps due (ms) or '' } ]]
-- include: clock, wake, ready, events, outcomes, identity, deps, settle, each
local now = clock.now(C)
local cap = tonumber(A.events)
for i = 1, ITEMS do
  local step = cjson.decode(each.item(C, i))
  -- A step names the queue it is for: one for another queue is not this script's to apply.
  if step[2] == deps.queue(C) then settle.apply(C, step, now, cap) end
end
-- Steps for this queue that these made (a failure passed down), or that earlier calls left, are
-- applied too, a batch.
settle.drain(C, 100, now, cap)
if C.stepped then wake.wakeIdle(C) end
local due = redis.call('ZRANGE', K.outbox, 0, 0, 'WITHSCORES')[2]
return { redis.call('LLEN', K.settle), due or '' }
