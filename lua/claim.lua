#!lua flags=allow-oom
--[[ claim: on the server's clock, ack the tasks a worker finished, then promote due tasks,
  re-queue lapsed leases, trim the dead, drop expired tasks, and lease up to `count` ready tasks.
  Acking and claiming in one call is one round trip per task for a busy worker; `count` 0 only acks.
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, active, tasks, dead,
    counts, wake, held, acked, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7,
    ready8, ready9, grouped, gtags, parked, gactive, glimits, paused, events, results, kept,
    progress, redirects, limits, rates, gheld, blocked, after, dependents, deplist, settle, outbox,
    logs, moved, done, history, keep, minutes, cancels, workers, busy, schedules
  ARGV[1] count         most tasks to lease; 0 to only ack
  ARGV[2] lease         lease length (ms)
  ARGV[3] token         random lease-token prefix; the i-th task leased gets token .. ':' .. i
  ARGV[4] worker        id of the claiming worker (host:pid:random)
  ARGV[5] deadMaxCount  dead tasks kept; the oldest beyond this are purged
  ARGV[6] deadMaxAge    ms a dead task is kept
  ARGV[7] remember      ms an ack's token is kept, so a retried ack is answered the same
  ARGV[8] events        most entries kept in the events stream; 0 for no events
  ARGV[9] keep          the worker's keepResult (ms), given to each task it leases that has none; 0 for none
  ARGV[10] doneMaxCount done tasks kept (include: history) when the queue has no keep() of its own
  ARGV[11] doneMaxAge   ms a done task is kept, likewise
  ARGV[12] lifecycle    1 to write the lifecycle events active, lapsed, retrying, drained, else 0
  ARGV[13] beat         for an idle worker's claim (include: alive), its heartbeat ttl (ms) once
                        it holds tasks; 0 for none (a busy worker's beats renew it; claim() callers)
  ARGV[14] rest         for an idle worker's claim, its ttl (ms) while it stays idle: its next wait
  ARGV[15] holding      1 when the worker still runs tasks, else 0
  ARGV[16] acks         number of acks in this call; then 3 slots per ack, starting at ARGV[17]:
  ARGV[+1] id           id of a finished task
  ARGV[+2] ackToken     the lease token claim handed out for it
  ARGV[+3] result       the handler's result as JSON, for its kept outcome and the history; '' for none
  Returns: { now, next-due (ms) or '', when the outbox has steps due (ms) or '', stopped early: 1
    when the lease step passed over its bound of entries (ghosts, expired or parked tasks) before it
    had leased `count`, for the caller to claim again at once, else 0; for an idle worker's claim 1
    when the queue has stored schedules, else 0; then 1 (acked) or 0 (lease
    lost) for each ack, then id, payload, attempt, run-at, expire-at or '', trace or '', keepResult
    (ms) or '', timeout (ms) or '', name or '', group or '' for each leased task } ]]
-- include: clock, many, wake, lease, ready, events, outcomes, identity, limits, deps, settle
-- include: records, attempt, acks, upkeep, gate, take, drained, each, alive
local now = clock.now(C)
local BATCH = 100 -- bounds the housekeeping one call does, so a backlog never stalls Redis
local cap, life = tonumber(A.events), A.lifecycle == '1'
local out = { now, '', '', 0, 0 }

-- 1. Acks (include: acks). `refilled` counts parked tasks moved back into `grouped` by this call.
local freed, refilled = acks.ackAll(C, out, now, cap)
local count = tonumber(A.count)
if count == 0 then
  -- What the acks released is ready when the call returns (a batch; claims take the rest).
  if C.stepped then settle.drain(C, BATCH, now, cap) end
  -- Only acks: a parked task they moved back, or a concurrency slot freed, is for an idle worker.
  local slots = freed > 0 and redis.call('EXISTS', K.limits) == 1
  if refilled > 0 or slots or C.stepped then wake.wakeIdle(C) end
  -- A finished task that tasks of other queues wait on, or one whose dependents' steps outran this
  -- call's batch: its client carries the steps at once (include: deps, toCarry).
  if deps.toCarry(C) then out[3] = now end
  return out
end

-- 2. Housekeeping (include: upkeep): due tasks become ready, lapsed leases end, the dead are trimmed.
-- An idle worker's claim first lapses the leases of workers whose heartbeat ran out (include: alive):
-- busy workers' beats do that, and when none is busy, the idle ones' claims must.
if A.beat ~= '0' then alive.sweep(C, now) end
local d, a, moved = upkeep.upkeep(C, now, cap, BATCH, life)
refilled = refilled + moved

-- One EXISTS for the four keys a plain queue lacks (dependency steps, pause, its own limits): a
-- queue that uses none of them pays one command for all, in every claim.
local extras = redis.call('EXISTS', K.settle, K.outbox, K.paused, K.limits) > 0

-- 3. Dependency work (include: settle): steps for this queue, a batch a call; and whether the outbox
-- holds steps for other queues that are due, for the worker to carry over (lib/features/deps.ts).
local carry, settling = nil, false
if extras and redis.call('EXISTS', K.settle, K.outbox) > 0 then
  settling = true
  settle.drain(C, BATCH, now, cap)
  carry = upkeep.earliest(K.outbox)
  if carry then out[3] = carry end
  d = upkeep.earliest(K.delayed)
end

-- 4. Pause and limits (include: gate): a paused queue, or one with no room, leases nothing.
local capped, limited, held, stop
count, capped, limited, held, stop = gate.gate(C, count, now, extras, d, a, out)
if stop then
  local watch = alive.claimed(C, now, out, 0, tonumber(out[2]))
  if watch then out[2] = watch end
  return out
end
-- 5. Lease (include: take).
local taken, more, until_, stopped
taken, more, held, moved, until_, stopped = take.take(C, out, count, now, cap, BATCH, limited, held, life)
refilled = refilled + moved
if stopped then out[4] = 1 end
if until_ then a = math.min(a or until_, until_) end
-- Tasks that waited on tasks this call dropped as expired learn now (ready ones: include: drained).
if C.stepped then settle.drain(C, BATCH, now, cap) end
drained.drainedAfter(C, life, cap, taken, more or C.stepped)

-- 6. When the worker should look again: now if ready tasks remain, else the next run-at or lease end.
-- Steps left in `settle` (a batch a call): the worker claims again at once to take the next, and
-- the client carries them on (lib/features/deps.ts), for a claim() caller that is no worker.
local unsettled = (settling or C.stepped) and redis.call('LLEN', K.settle) > 0
if unsettled then out[3] = now end
local backlog = more or (refilled > 0 and redis.call('ZCARD', K.grouped) > 0) or unsettled
-- (At its concurrency limit, the queue has no room now: the next lease end, or a wake token, will;
-- a group held by its rate limit reopens at `held`.)
local due = d
if a and (not due or a < due) then due = a end
if held and (not due or held < due) then due = held end
-- A step leased to a carrier that died is due again then. (One due now is this worker's to
-- carry, which it does on this reply: no reason to claim again at once.)
if carry and carry > now and (not due or carry < due) then due = carry end
due = alive.claimed(C, now, out, taken, due)
if backlog and not capped then out[2] = now elseif due then out[2] = due end
-- This worker is now full and ready tasks remain: wake an idle worker to take them. (Run-ats and
-- lease ends need no hand-over: every idle worker's timer already covers them, or a put woke it.)
if backlog and taken == count and not capped then wake.wakeIdle(C) end
return out
