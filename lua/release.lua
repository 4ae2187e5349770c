#!lua flags=allow-oom
--[[ release: hand a held task back unfinished (a worker shutting down), if the caller still holds
  its lease. The delivery is not counted against its attempts, and it goes to the head of its
  level's ready list, since it was already due.
  KEYS (as K.<name>; each described in docs/design.md#keys): active, ready, tasks, held, wake,
    levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags,
    parked, gactive, glimits
  ARGV[1] id     task id
  ARGV[2] token  the lease token handed out by claim
  Returns: 1 when released, 0 when the lease was already lost ]]
-- include: record, clock, lease, wake, ready, groups
local now = clock.now(C)
local id = A.id
local meta = lease.held(C, id, A.token, now)
if not meta then return 0 end
redis.call('ZREM', K.active, id)
redis.call('ZREM', K.held, meta.w .. '|' .. id)
meta.n, meta.t, meta.l, meta.w = math.max(0, meta.n - 1), nil, nil, nil
redis.call('HSET', K.tasks, id, record.encode(meta))
ready.push(C, id, meta, true)
-- Queued at the current round, it takes its group's place again itself.
groups.finished(C, meta, true)
wake.wakeIdle(C)
return 1
