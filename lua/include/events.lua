--[[ events: included by the scripts that finish, fail, drop or de-duplicate tasks (not a script
  itself). Each such outcome is appended to the queue's `events` STREAM, which the including script
  passes as C.K.events, capped at about `cap` entries (MAXLEN ~, so trimming is cheap); cap 0
  turns events off. The entry id is the server's clock, so consumers order and time events by it.
  Fields: type (completed | failed | dead | expired | deduplicated | cancelled | progress |
  snoozed, and the lifecycle types below), id (the task; none for drained, paused, resumed), and
  where they apply attempt (the delivery it was), error (the last failure), ending (failed, dead and
  retrying: failed, unrecoverable or retry-later), progress (the value reported, as JSON), worker
  (active, lapsed: the lease's holder), runAt (added, retrying: when it runs, epoch ms) and group
  (paused, resumed of one group).
  Lifecycle types (BullMQ's QueueEvents): added, active, lapsed, retrying and drained, written only
  when the scheduler asks for them (option events: 'all', passed to the script as `life`), so a
  put or claim of a queue that does not pays nothing for them; paused and resumed (rare admin
  calls) are always written. ]]
local events = {}

-- The cap as text, made once per call and cap (kept in the call's C): a Lua number goes to Redis
-- printed with %.17g, a few thousand instructions each time (docs/performance.md, issue 31).
function events.capAsText(C, cap)
  if cap ~= C.capFor then C.capFor, C.capText = cap, string.format('%d', cap) end
  return C.capText
end

function events.emit(C, cap, ...)
  if cap > 0 then redis.call('XADD', C.K.events, 'MAXLEN', '~', events.capAsText(C, cap), '*', ...) end
end

-- Outcome counts per task name: `counts` fields '<counter>|<name>' (completed, failed, dead), for
-- stats().byName and metrics. At most NAMED such fields per queue (field `named` counts them); a
-- new name past that counts under '<counter>|' (no name is empty), so names made from user input
-- cannot grow the hash, the stats reply or the metrics' label sets without bound. An unnamed task
-- costs nothing here.
local NAMED = 300
function events.countNamed(key, counter, meta)
  if not meta.nm then return end
  local field = counter .. '|' .. meta.nm
  if redis.call('HEXISTS', key, field) == 0 and redis.call('HINCRBY', key, 'named', 1) > NAMED then
    redis.call('HINCRBY', key, 'named', -1)
    field = counter .. '|'
  end
  redis.call('HINCRBY', key, field, 1)
end

-- An event of a task whose metadata is at hand: a named task's events carry its name, so a
-- reader can tell kinds of work apart without looking the task up (it may be gone by then).
function events.emitFor(C, cap, meta, ...)
  if cap <= 0 then return end
  if meta and meta.nm then
    redis.call('XADD', C.K.events, 'MAXLEN', '~', events.capAsText(C, cap), '*', 'name', meta.nm, ...)
  else
    redis.call('XADD', C.K.events, 'MAXLEN', '~', events.capAsText(C, cap), '*', ...)
  end
end

-- An error as an event carries it: its first lines are enough to tell what happened, and a full
-- stack in each of thousands of entries would make the stream large. get() has the whole text.
function events.brief(err) return string.sub(err or '', 1, 500) end

-- A lifecycle event (added, active, lapsed, retrying, drained): written only when `life` is set
-- (the scheduler's option events: 'all'); else nothing, not even an XADD.
function events.emitLife(C, life, cap, meta, ...)
  if life then events.emitFor(C, cap, meta, ...) end
end
