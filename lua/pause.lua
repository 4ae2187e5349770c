#!lua flags=allow-oom
--[[ pause: stop or restart the leasing of a queue's tasks, for every worker at once. Puts are still
  accepted while a queue is paused; acks, fails and housekeeping go on.
  KEYS[1] <prefix>:{<queue>}:paused  STRING present while the queue is paused: claims lease nothing
  KEYS[2] <prefix>:{<queue>}:wake    LIST  wake-up tokens for idle workers (at most one)
  ARGV[1] paused  1 to pause, 0 to resume
  Returns: 1 when this call changed the queue's state, 0 when it was already so ]]
if ARGV[1] == '1' then
  return redis.call('SET', KEYS[1], '1', 'NX') and 1 or 0
end
local changed = redis.call('DEL', KEYS[1])
-- Idle workers wait for a wake token or their own timer: one token starts a worker, and a worker
-- that fills up with a backlog left wakes the next (claim), so the whole pool comes back.
if changed == 1 and redis.call('LLEN', KEYS[2]) == 0 then redis.call('RPUSH', KEYS[2], '1') end
return changed
