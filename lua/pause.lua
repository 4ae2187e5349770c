#!lua flags=allow-oom
--[[ pause: stop or restart the leasing of a queue's tasks, for every worker at once. Puts are still
  accepted while a queue is paused; acks, fails and housekeeping go on. A change writes a `paused`
  or `resumed` event (include: events), whatever the scheduler's events option: rare admin calls.
  KEYS (as K.<name>; each described in docs/design.md#keys): paused, wake, events
  ARGV[1] paused  1 to pause, 0 to resume
  ARGV[2] events  most entries kept in the events stream; 0 for no events
  Returns: 1 when this call changed the queue's state, 0 when it was already so ]]
-- include: wake, events
local cap = tonumber(A.events)
if A.paused == '1' then
  if not redis.call('SET', K.paused, '1', 'NX') then return 0 end
  events.emit(C, cap, 'type', 'paused')
  return 1
end
local changed = redis.call('DEL', K.paused)
-- Idle workers wait for a wake token or their own timer: one token starts a worker, and a worker
-- that fills up with a backlog left wakes the next (claim), so the whole pool comes back.
if changed == 1 then
  events.emit(C, cap, 'type', 'resumed')
  wake.wakeIdle(C)
end
return changed
