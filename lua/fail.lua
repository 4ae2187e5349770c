#!lua flags=allow-oom
--[[ fail: a held task's handler failed; retry it after a back-off, or make it dead when out of
  attempts. Refused when the caller no longer holds the lease (fencing).
  KEYS (as K.<name>; each described in docs/design.md#keys): active, delayed, ready, tasks, dead,
    counts, wake, held, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8,
    ready9, grouped, gtags, parked, gactive, glimits, events, results, kept, progress, redirects,
    limits, blocked, after, dependents, deplist, settle, outbox, logs, minutes
  ARGV[1] id           task id
  ARGV[2] token        the lease token handed out by claim
  ARGV[3] retryIn      ms from the server's now until the retry
  ARGV[4] error        last error, kept for inspection
  ARGV[5] maxAttempts  overrides the task's own most attempts (meta.m), or '' to keep it
  ARGV[6] events       most entries kept in the events stream; 0 for no events
  ARGV[7] ending       how the handler ended the attempt: 'failed', 'unrecoverable' (dead at once,
                       whatever attempts are left) or 'retry-later'
  ARGV[8] retryAt      when the retry runs (epoch ms, a RetryLaterError's `at`), or '' for retryIn
  ARGV[9] lifecycle    1 to write the `retrying` event of a retry (events: 'all'), else 0
  Returns: 'retry', 'dead', 'merged' (an until-start task whose identity already has a task
    waiting: deleted instead of retried) or 'lost'; ':carry' appended when the call left steps in
    the outbox for other queues (a dead task others wait on), or in `settle` past its batch (a
    failure down a long chain), for the client to carry at once ]]
-- include: clock, lease, wake, ready, events, outcomes, identity, deps, settle, records, attempt
local now = clock.now(C)
local id = A.id
local meta = lease.held(C, id, A.token, now)
if not meta then return 'lost' end

local cap = tonumber(A.events)
-- A concurrency slot is free again: a worker should look (as when its group gets a place back).
local slots = redis.call('EXISTS', K.limits) == 1
local maxAttempts = A.maxAttempts ~= '' and tonumber(A.maxAttempts) or meta.m
-- An unrecoverable failure has no attempts left: this one was its last.
if A.ending == 'unrecoverable' then maxAttempts = meta.n end
local retryAt = A.retryAt ~= '' and tonumber(A.retryAt) or now + tonumber(A.retryIn)
local outcome, refilled, toWake = attempt.endAttempt(C, id, meta, A.error, maxAttempts, retryAt, now, cap, A.ending, A.lifecycle == '1')
-- The tasks that waited on it learn now (a batch; the client carries on with the rest).
if C.stepped then settle.drain(C, 100, now, cap) end
if toWake or refilled > 0 or slots or C.stepped then wake.wakeIdle(C) end
if deps.toCarry(C) then return outcome .. ':carry' end
return outcome
