#!lua flags=allow-oom
--[[ beat: a worker's heartbeat. Renews this worker's entry, and lapses at once the leases of
  every worker whose heartbeat has run out (it crashed or hangs), so their tasks are re-delivered
  within about the heartbeat's ttl instead of after their full lease. It also ends the tasks of
  this worker that were cancelled while they ran (include: cancels), for the worker to abort
  their handlers: one range read of `cancels` a beat, whatever the number of tasks.
  KEYS (as K.<name>; each described in docs/design.md#keys): workers, held, active, wake, cancels,
    tasks, dead, delayed, counts, ready, levels, ready1, ready2, ready3, ready4, ready5, ready6,
    ready7, ready8, ready9, grouped, gtags, parked, gactive, glimits, events, results, kept, progress,
    redirects, blocked, after, dependents, deplist, settle, outbox, logs
  ARGV[1] worker  this worker's id (host:pid:random)
  ARGV[2] ttl     ms until this heartbeat runs out; 0 when the worker leaves
  ARGV[3] events  most entries kept in the events stream; 0 for no events
  Returns: { how many leases were lapsed, then the id of each task of this worker cancelled } ]]
-- include: clock, wake, ready, events, outcomes, identity, deps, records, cancels, record
local now = clock.now(C)
local ttl = tonumber(A.ttl)
if ttl > 0 then
  redis.call('ZADD', K.workers, now + ttl, A.worker)
else
  redis.call('ZREM', K.workers, A.worker)
end
local out, woken = { 0 }, false
-- This worker's cancelled tasks: each ends here, and the worker aborts its handler. (A bounded
-- batch a beat; the next beat takes the rest.)
for _, m in ipairs(redis.call('ZRANGEBYLEX', K.cancels, '[' .. A.worker .. '|', '(' .. A.worker .. '}', 'LIMIT', 0, 100)) do
  local id = string.sub(m, #A.worker + 2)
  local raw = redis.call('HGET', K.tasks, id)
  local meta = raw and record.peek(raw)
  if meta and meta.cx and meta.w == A.worker and redis.call('ZSCORE', K.active, id) then
    cancels.endCancel(C, id, meta, now, tonumber(A.events))
    table.insert(out, id)
    woken = true
  else
    -- Ended already (its lease lapsed first), or leased anew since: the mark is stale.
    redis.call('ZREM', K.cancels, m)
  end
end
local lapsed = 0
for _, w in ipairs(redis.call('ZRANGEBYSCORE', K.workers, '-inf', now, 'LIMIT', 0, 10)) do
  -- Every member that starts with "<w>|": '}' is the character after '|'.
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K.held, '[' .. w .. '|', '(' .. w .. '}')) do
    -- A deadline of now makes the lease lapsed: the next claim re-queues it (or makes it dead, or
    -- ends it cancelled when it was cancelled while it ran: include: upkeep). That claim writes the
    -- `lapsed` event (events: 'all'), as for a lease that ran out by itself: once, in order with the
    -- attempt's `failed`, so this script needs no lifecycle argument.
    lapsed = lapsed + redis.call('ZADD', K.active, 'XX', 'CH', now, string.sub(m, #w + 2))
  end
  -- The marks of its cancelled tasks: their lapsed leases end them now.
  redis.call('ZREMRANGEBYLEX', K.cancels, '[' .. w .. '|', '(' .. w .. '}')
  redis.call('ZREM', K.workers, w)
end
out[1] = lapsed
if lapsed > 0 or woken then wake.wakeIdle(C) end
return out
