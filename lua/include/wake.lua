--[[ wake: included by every script that makes work an idle worker should take now. Idle workers
  block on the `wake` LIST (BLPOP); one token wakes one of them, which claims and, if it leaves
  ready tasks behind, wakes the next (claim). The list holds at most one token, so a burst of puts
  costs one token, not one per task (docs/design.md#waking-idle-workers). ]]
local wake = {}

-- Leaves a wake token for an idle worker, unless one is already waiting.
function wake.wakeIdle(C)
  if redis.call('LLEN', C.K.wake) == 0 then redis.call('RPUSH', C.K.wake, '1') end
end
