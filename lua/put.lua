#!lua
--[[ put: add tasks to a queue unless an identical live task is already there (de-dup), in the
  mode each put asks for: an until-start identity, a de-dup window, replace or debounce.
  KEYS (as K.<name>; each described in docs/design.md#keys): tasks, delayed, ready, dead, counts,
    wake, occurred, schedules, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7,
    ready8, ready9, grouped, gtags, parked, gactive, glimits, events, progress, windows, redirects,
    results, kept, blocked, after, dependents, deplist, settle, outbox, logs, moved, history, done
  ARGV[1] count         number of tasks in this call; then 4 slots per task, starting at ARGV[6]
  ARGV[2] maxAttempts   deliveries before a task goes dead, for tasks whose options are ''
  ARGV[3] schedule      '' for plain puts; else the name of the recurring schedule whose
                        occurrences these tasks are (each with an `at`): an occurrence at or before
                        the schedule's latest one put is skipped, so each is put once, ever; and
                        none is put once the schedule is gone (unschedule)
  ARGV[4] events        most entries kept in the events stream; 0 for no events
  ARGV[5] lifecycle     1 to write an `added` event per task added (events: 'all'), else 0
  ARGV[+1] id           identity hash (hex), the base id; a collision probes id-1, id-2, ...
  ARGV[+2] payload      canonical JSON payload
  ARGV[+3] options      '' for the defaults (due now, normal priority, no expiry, de-dup on the
                        payload, until done, keep), else a JSON object of the options given
                        (include: options)
  ARGV[+4] after        '' for none, else onDependencyFailure (d dead, r run, c cancel) then the
                        JSON [[queue, hash], ...] of the tasks it waits on (include: deps)
  Returns: { id, code, run-at, ... } three entries per task, in call order; code 1 added, 2 a dead
    task revived by this put, 3 a pending task replaced (replace, debounce), 0 a duplicate (of a
    live task, or of one put within its window: then run-at is when the window ends); a skipped
    occurrence answers { '', 0, run-at }, or { '', -1, run-at } when the schedule is gone ]]
-- include: clock, many, wake, ready, events, outcomes, identity, deps, settle, records, rerun
-- include: options, each
local now = clock.now(C)
local count = tonumber(A.count)
local out, dups, added, replaced = {}, 0, 0, 0
local cap = tonumber(A.events)
local life = A.lifecycle == '1'
-- include: occurrences, gather, replace, windows, add

if occurrences.gone(C, out, count) then return out end
local bases = {}
for i = 1, count do bases[i] = each.item(C, i) end
local stored = redis.call('HMGET', K.tasks, unpack(bases))
-- One EXISTS tells whether the queue has until-start pointers, de-dup windows, kept outcomes or a
-- done history (which a new run drops: include: outcomes, rerun) at all: a queue with none pays
-- nothing more. One with only its done history (the default, once a task is done) pays one more.
local extras = redis.call('EXISTS', K.redirects, K.windows, K.results, K.history)
if extras == 1 and redis.call('EXISTS', K.history) == 1 then
  rerun.knowHistory(C, true)
  extras = 0
end
if extras == 0 then
  identity.knowRedirects(C, false); windows.knowWindows(C, false); outcomes.knowOutcomes(C, false)
  if C.historyKnown == nil then rerun.knowHistory(C, false) end
else
  identity.knowRedirects(C, redis.call('EXISTS', K.redirects) == 1)
end
gather.start(C, count)

-- Each task is answered { id, code, run-at } (Returns above); a duplicate is a result, not an error.
for i = 1, count do
  local _, payload, given, after = each.item(C, i)
  local o = options.parse(C, given)
  local base = bases[i]
  local answerId, code, runAt = '', 0, o.at
  if not occurrences.skipped(C, o) then
    local id, old = base, nil
    if stored[i] or identity.pending(C, base) or C.redirectsKnown or C.gather.stale then
      local raw = nil
      if not C.gather.stale then raw = stored[i] end
      id, old = identity.find(C, base, payload, o.key, o.name, raw)
    end
    local state = old and (identity.pending(C, id) and 'pending' or (old.t and 'active') or (redis.call('ZSCORE', K.dead, id) and 'dead') or 'pending')
    local closes = nil
    if not old or state == 'dead' then closes = windows.windowEnd(C, base) end
    if old and state ~= 'dead' then
      if state == 'pending' and string.find(o.mode, '[rd]') and not old.a then
        -- replace, debounce: a task not yet leased takes this put's data and options.
        answerId, code, runAt = id, 3, replace.replace(C, id, old, payload, o)
        replaced = replaced + 1
        events.emit(C, cap, 'type', 'replaced', 'id', id)
      else
        answerId, runAt = id, old.r
      end
    elseif closes then
      -- Within its window the identity stays taken, whatever became of its task.
      answerId, runAt = old and id or base, closes
    else
      -- New, or a dead task revived (include: add).
      answerId, code, runAt = id, old and 2 or 1, add.add(C, id, base, old, payload, o, after)
      added = added + 1
      events.emitLife(C, life, cap, o.name ~= '' and { nm = o.name } or nil, 'type', 'added', 'id', id, 'runAt', runAt)
    end
    if code == 0 then
      dups = dups + 1
      events.emit(C, cap, 'type', 'deduplicated', 'id', answerId)
    end
  end
  table.insert(out, answerId); table.insert(out, code); table.insert(out, runAt)
end
occurrences.occurred(C)
gather.flush(C)
if dups > 0 then redis.call('HINCRBY', K.counts, 'deduplicated', dups) end
if added > 0 then redis.call('HINCRBY', K.counts, 'added', added) end
if replaced > 0 then redis.call('HINCRBY', K.counts, 'replaced', replaced) end
if gather.woken(C) or C.stepped then wake.wakeIdle(C) end
return out
