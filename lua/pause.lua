#!lua flags=allow-oom
--[[ pause: stop or restart the leasing of a queue's tasks, for every worker at once. Puts are still
  accepted while a queue is paused; acks, fails and housekeeping go on.
  KEYS (as K.<name>; each described in docs/design.md#keys): paused, wake
  ARGV[1] paused  1 to pause, 0 to resume
  Returns: 1 when this call changed the queue's state, 0 when it was already so ]]
-- include: wake
if A.paused == '1' then
  return redis.call('SET', K.paused, '1', 'NX') and 1 or 0
end
local changed = redis.call('DEL', K.paused)
-- Idle workers wait for a wake token or their own timer: one token starts a worker, and a worker
-- that fills up with a backlog left wakes the next (claim), so the whole pool comes back.
if changed == 1 then wakeIdle() end
return changed
