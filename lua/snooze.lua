#!lua flags=allow-oom
--[[ snooze: the handler ends its attempt without counting it (task.snooze(span)), if the caller
  still holds the lease (fencing): the lease is released, the delivery is not counted against its
  attempts (the next one sees the same attempt number), and the task waits `delay` ms from the
  server's now, its ending 'snoozed'.
  KEYS (as K.<name>; each described in docs/design.md#keys): active, delayed, ready, tasks, held,
    wake, events, limits, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8,
    ready9, grouped, gtags, parked, gactive, glimits
  ARGV[1] id      task id
  ARGV[2] token   the lease token handed out by claim
  ARGV[3] delay   ms from the server's now until it runs again (0: ready at once, behind the rest)
  ARGV[4] events  most entries kept in the events stream; 0 for no events
  Returns: 1 when snoozed, 0 when the lease was already lost (nothing changed) ]]
-- include: record, clock, lease, wake, ready, events, controls, groups
local now = clock.now(C)
local id = A.id
local meta = lease.held(C, id, A.token, now)
if not meta then return 0 end
redis.call('ZREM', K.active, id)
redis.call('ZREM', K.held, meta.w .. '|' .. id)
local delivery = meta.n
-- Not counted: the claim that delivers it again counts it once more, as the same attempt.
meta.n, meta.t, meta.l, meta.w, meta.en = math.max(0, meta.n - 1), nil, nil, nil, 'snoozed'
meta.r = now + tonumber(A.delay)
-- Its group has one less active task: the group's parked tasks may move up.
-- An ordered group's head keeps its place while snoozed (include: controls).
controls.holdHead(C, id, meta, false)
local refilled = groups.finished(C, meta)
local toWake = refilled > 0 or redis.call('EXISTS', K.limits) == 1
if meta.r <= now then
  ready.push(C, id, meta)
  toWake = true
else
  redis.call('ZADD', K.delayed, meta.r, id)
  -- A new earliest run-at: an idle worker must re-arm its timer.
  toWake = toWake or redis.call('ZRANGE', K.delayed, 0, 0)[1] == id
end
redis.call('HSET', K.tasks, id, record.encode(meta))
events.emitFor(C, tonumber(A.events), meta, 'type', 'snoozed', 'id', id, 'attempt', delivery)
if toWake then wake.wakeIdle(C) end
return 1
