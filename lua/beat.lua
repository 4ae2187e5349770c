#!lua flags=allow-oom
--[[ beat: a busy worker's heartbeat, one call per interval for all its running tasks. Renews this
  worker's entry (include: alive), extends the leases of its tasks it names (fenced, as extend
  does), ends its tasks that were cancelled while they ran (include: cancels), for the worker to
  abort their handlers, and lapses at once the leases of every worker whose heartbeat has run out
  (it crashed or hangs), so their tasks are re-delivered within about the heartbeat's ttl instead
  of after their full lease. An idle worker does not beat: its claims renew it (claim).
  KEYS (as K.<name>; each described in docs/design.md#keys): workers, busy, held, active, wake,
    cancels, schedules, tasks, dead, delayed, counts, ready, levels, ready1, ready2, ready3, ready4,
    ready5, ready6, ready7, ready8, ready9, grouped, gtags, parked, gactive, glimits, events, results,
    kept, progress, redirects, blocked, after, dependents, deplist, settle, outbox, logs
  ARGV[1] worker  this worker's id (host:pid:random)
  ARGV[2] ttl     ms until this heartbeat runs out; 0 when the worker leaves
  ARGV[3] events  most entries kept in the events stream; 0 for no events
  ARGV[4] busy    1 while the worker holds tasks (it stays in `busy`), else 0 (it leaves `busy`)
  ARGV[+1] id     id of a task this worker holds, whose lease to extend
  ARGV[+2] token  the lease token claim handed out for it
  ARGV[+3] by     its new lease length from the server's now (ms)
  Returns: { how many leases were lapsed, 1 when the queue has stored schedules else 0, for a beat
    that is not busy the earliest heartbeat deadline of another busy worker (ms) or '', how many
    tasks of this worker were cancelled, then the id of each, then for each lease to extend its
    new deadline (ms), or 0 when the lease was lost } ]]
-- include: clock, wake, ready, events, outcomes, identity, deps, records, cancels, record, alive
-- include: lease, each
local now = clock.now(C)
local ttl = tonumber(A.ttl)
if ttl > 0 then alive.renew(C, A.worker, now, ttl, A.busy == '1') else alive.leave(C, A.worker) end
local cancelled, woken = {}, false
-- This worker's cancelled tasks: each ends here, and the worker aborts its handler. (A bounded
-- batch a beat; the next beat takes the rest.)
for _, m in ipairs(redis.call('ZRANGEBYLEX', K.cancels, '[' .. A.worker .. '|', '(' .. A.worker .. '}', 'LIMIT', 0, 100)) do
  local id = string.sub(m, #A.worker + 2)
  local raw = redis.call('HGET', K.tasks, id)
  local meta = raw and record.peek(raw)
  if meta and meta.cx and meta.w == A.worker and redis.call('ZSCORE', K.active, id) then
    cancels.endCancel(C, id, meta, now, tonumber(A.events))
    table.insert(cancelled, id)
    woken = true
  else
    -- Ended already (its lease lapsed first), or leased anew since: the mark is stale.
    redis.call('ZREM', K.cancels, m)
  end
end
local lapsed = alive.sweep(C, now)
-- A worker turning idle learns when to look whether a busy one died (include: alive).
local watch = A.busy ~= '1' and ttl > 0 and alive.watch(C, A.worker) or ''
local out = { lapsed, redis.call('EXISTS', K.schedules), watch, #cancelled }
for _, id in ipairs(cancelled) do table.insert(out, id) end
-- The leases to extend, each only while this worker's token still holds it (include: lease).
for i = 1, ITEMS do
  local id, token, by = each.item(C, i)
  local meta = lease.held(C, id, token, now)
  if meta then
    meta.l = now + tonumber(by)
    redis.call('ZADD', K.active, meta.l, id)
    redis.call('HSET', K.tasks, id, record.encode(meta))
    table.insert(out, meta.l)
  else
    table.insert(out, 0)
  end
end
if lapsed > 0 or woken then wake.wakeIdle(C) end
return out
