#!lua
--[[ put: add tasks to a queue unless an identical live task is already there (de-dup), in the
  mode each put asks for: an until-start identity, a de-dup window, replace or debounce.
  KEYS (as K.<name>; each described in docs/design.md#keys): data, meta, delayed, ready, dead,
    counts, wake, occurred, schedules, levels, ready1, ready2, ready3, ready4, ready5, ready6,
    ready7, ready8, ready9, grouped, gtags, parked, gactive, glimits, events, progress, windows,
    waiting, results, kept, blocked, after, dependents, deplist, settle, outbox, logs, moved
  ARGV[1] count         number of tasks in this call; then 4 slots per task, starting at ARGV[5]
  ARGV[2] maxAttempts   deliveries before a task goes dead, for tasks whose options are ''
  ARGV[3] schedule      '' for plain puts; else the name of the recurring schedule whose
                        occurrences these tasks are (each with an `at`): an occurrence at or before
                        the schedule's latest one put is skipped, so each is put once, ever; and
                        none is put once the schedule is gone (unschedule)
  ARGV[4] events        most entries kept in the events stream; 0 for no events
  ARGV[+1] id           identity hash (hex), the base id; a collision probes id-1, id-2, ...
  ARGV[+2] payload      canonical JSON payload
  ARGV[+3] options      '' for the defaults (due now, normal priority, no expiry, de-dup on the
                        payload, until done, keep), else
                        'delay|at|priority|expire|maxAttempts|group|trace|keep|mode|window|timeout|name|key':
                        delay in ms after the server's now, at (epoch ms), '' for either when not
                        given; priority the level 0-9; group '' for none; expire in ms after
                        run-at, or ''; trace the producer's encoded trace context, or '';
                        keep how long (ms) the outcome is kept once the task finishes, or '';
                        mode letters: s unique until-start, r onDuplicate replace, d debounce;
                        window the de-dup window (ms) or ''; timeout how long one attempt may run
                        (ms) or ''; name the task's name or '' (part of its identity); key '' to
                        de-dup on the payload
  ARGV[+4] after        '' for none, else onDependencyFailure (d dead, r run, c cancel) then the
                        JSON [[queue, hash], ...] of the tasks it waits on (include: deps)
  Returns: { id, code, run-at, ... } three entries per task, in call order; code 1 added, 2 a dead
    task revived by this put, 3 a pending task replaced (replace, debounce), 0 a duplicate (of a
    live task, or of one put within its window: then run-at is when the window ends); a skipped
    occurrence answers { '', 0, run-at }, or { '', -1, run-at } when the schedule is gone ]]
-- include: clock
-- include: many
-- include: wake
-- include: levels
-- include: events
-- include: outcomes
-- include: identity
-- include: deps
-- include: records
local now = nowMs()
local count = tonumber(ARGV[1])
local out, wake, dups, added, replaced = {}, false, 0, 0, 0
local cap = tonumber(ARGV[4])
-- Writes are gathered and made at the end (flush), a few variadic calls per chunk instead of
-- several per task. `pending` (include: identity) holds what this call is about to write, so a
-- duplicate within the call is found.
local data, metas, delayed = {}, {}, {}
-- Ready ids by priority level (0-9), each pushed at its list's tail: FIFO within a level.
local queued = {}
for level = 0, 9 do queued[level] = {} end
-- Grouped ready tasks (tag, id pairs) and the lanes whose latest tag they moved.
local grouped, lanes = {}, {}
-- Set once a flush has written part of the call: the base records read up front are then stale.
-- `batch` counts flushes, so a task added since the last one is known as not yet written.
local stale, batch = false, 0


-- Makes the gathered writes.
local function flush()
  many('HSET', K.data, data)
  many('HSET', K.meta, metas)
  many('RPUSH', K.ready, queued[0])
  if #grouped > 0 then
    many('ZADD', K.grouped, grouped)
    local latest = {}
    for lane in pairs(lanes) do table.insert(latest, lane); table.insert(latest, tagged.lanes[lane]) end
    many('HSET', K.gtags, latest)
    redis.call('ZADD', K.levels, 0.5, 'g')
  end
  for level = 1, 9 do
    if #queued[level] > 0 then
      many('RPUSH', K['ready' .. level], queued[level])
      redis.call('ZADD', K.levels, level, level)
    end
  end
  many('ZADD', K.delayed, delayed)
  data, metas, delayed, grouped, lanes = {}, {}, {}, {}, {}
  for level = 0, 9 do queued[level] = {} end
  stale, batch = true, batch + 1
end

-- Gathers the writes of a task record and of its place: ready now, or delayed until its run-at.
local earliest
local function store(id, meta, payload)
  if payload then table.insert(data, id); table.insert(data, payload) end
  table.insert(metas, id); table.insert(metas, cjson.encode(meta))
  if meta.r <= now then
    if meta.g then
      table.insert(grouped, tagOf(meta)); table.insert(grouped, id)
      lanes[laneOf(meta)] = true
    else
      table.insert(queued[meta.p or 0], id)
    end
    wake = true
  else
    table.insert(delayed, meta.r); table.insert(delayed, id)
    if not earliest or meta.r < earliest then earliest, wake = meta.r, true end
  end
end

-- The options of one task.
local DEFAULTS = { level = 0, attempts = tonumber(ARGV[2]), group = '', trace = '', key = '', mode = '', name = '' }
local function parse(options)
  if options == '' then return DEFAULTS end
  local d, a, p, x, m, g, tr, kr, md, w, to, nm, k = string.match(options, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
  return { delay = tonumber(d), at = tonumber(a), level = tonumber(p), expire = tonumber(x), attempts = tonumber(m), group = g,
    trace = tr, keep = tonumber(kr), mode = md, window = tonumber(w), timeout = tonumber(to), name = nm, key = k }
end

-- A task's metadata as these options make it; `old` (a replaced task) keeps its history.
local function metaOf(o, runAt, old)
  local meta = { r = runAt, m = o.attempts, n = old and old.n or 0, c = old and old.c or now, err = old and old.err }
  if o.level > 0 then meta.p = o.level end
  if o.group ~= '' then meta.g = o.group end
  if o.key ~= '' then meta.k = o.key end
  if o.name ~= '' then meta.nm = o.name end
  meta.tp = o.trace ~= '' and o.trace or (old and old.tp)
  meta.kr = o.keep or (old and old.kr)
  meta.to = o.timeout or (old and old.to)
  -- A replaced task keeps its progress and logs (from earlier attempts): the flags say they exist.
  meta.pg, meta.lg = old and old.pg, old and old.lg
  if o.expire then meta.x = o.expire; meta.e = runAt + o.expire end
  if string.find(o.mode, 's', 1, true) then meta.us = 1 end
  return meta
end

-- include: replace
-- include: windows

-- A task put `after` others waits in `blocked` (include: deps): its record is written at once
-- (with what this call gathered before it, which may hold a task it names), and each task it
-- names learns of it: one of this queue here, one of another queue through a step in the outbox.
-- A task it names that is no longer live settles at once, so one already done counts as done.
local function wait(id, meta, payload, after)
  flush()
  local policy, refs = string.sub(after, 1, 1), string.sub(after, 2)
  meta.a, meta.dl = 1, 1
  if policy ~= 'd' then meta.df = policy end
  redis.call('HSET', K.data, id, payload)
  redis.call('HSET', K.meta, id, cjson.encode(meta))
  redis.call('ZADD', K.blocked, now, id)
  redis.call('HSET', K.deplist, id, refs)
  local named, entries = cjson.decode(refs), {}
  for _, ref in ipairs(named) do
    table.insert(entries, 0); table.insert(entries, id .. '|' .. ref[2] .. '|' .. ref[1])
  end
  many('ZADD', K.after, entries)
  registerAll(named, id, now, cap)
  stale = true
end
local schedule = ARGV[3]
if schedule ~= '' and redis.call('HEXISTS', K.schedules, schedule) == 0 then
  for i = 1, count do
    local a = string.match(ARGV[4 * i + 3], '^[^|]*|([^|]*)|')
    table.insert(out, ''); table.insert(out, -1); table.insert(out, tonumber(a))
  end
  return out
end
local latest = schedule ~= '' and tonumber(redis.call('HGET', K.occurred, schedule)) or nil
local bases = {}
for i = 1, count do bases[i] = ARGV[4 * i + 1] end
local stored = redis.call('HMGET', K.meta, unpack(bases))
-- One EXISTS tells whether the queue has until-start pointers or de-dup windows at all: a queue
-- with neither (most) pays nothing more per put.
if redis.call('EXISTS', K.waiting, K.windows) == 0 then
  waitingKnown, windowsKnown = false, false
else
  waitingKnown = redis.call('EXISTS', K.waiting) == 1
end
-- A new earliest run-at means an idle worker must re-arm its timer.
earliest = tonumber(redis.call('ZRANGE', K.delayed, 0, 0, 'WITHSCORES')[2])

local function answer(id, code, runAt) table.insert(out, id); table.insert(out, code); table.insert(out, runAt) end
-- A duplicate: a result, not an error.
local function duplicate(id, runAt)
  dups = dups + 1
  emit(cap, 'type', 'deduplicated', 'id', id)
  answer(id, 0, runAt)
end

for i = 1, count do
  local payload, o, after = ARGV[4 * i + 2], parse(ARGV[4 * i + 3]), ARGV[4 * i + 4]
  -- Every process that declares a schedule puts its occurrences; the first put of each wins.
  local skip = schedule ~= '' and latest and o.at <= latest
  if schedule ~= '' and not skip then latest = o.at end
  local base = bases[i]
  if skip then
    answer('', 0, o.at)
  else
    local id, old = base, nil
    if stored[i] or pending[base] or waitingKnown or stale then
      local raw = nil
      if not stale then raw = stored[i] end
      id, old = find(base, payload, o.key, o.name, raw)
    end
    local state = old and (pending[id] and 'pending' or (old.t and 'active') or (redis.call('ZSCORE', K.dead, id) and 'dead') or 'pending')
    local closes = nil
    if not old or state == 'dead' then closes = windowEnd(base) end
    if old and state ~= 'dead' then
      if state == 'pending' and string.find(o.mode, '[rd]') and not old.a then
        -- replace, debounce: a task not yet leased takes this put's data and options.
        local runAt = replace(id, old, payload, o)
        replaced = replaced + 1
        emit(cap, 'type', 'replaced', 'id', id)
        answer(id, 3, runAt)
      else
        duplicate(id, old.r)
      end
    elseif closes then
      -- Within its window the identity stays taken, whatever became of its task.
      duplicate(old and id or base, closes)
    else
      -- New, or a dead task revived by putting it again (it starts afresh: its progress and logs go, and
      -- the tasks it waited on before: this put's `after`, if any, is its list now).
      if old then
        redis.call('ZREM', K.dead, id)
        forgetExtras(id, old)
      end
      local meta = metaOf(o, o.at or now + (o.delay or 0))
      if id ~= base then
        -- Not at its base (an until-start identity whose task there runs, or a collision): a
        -- pointer lets later lookups find it even once the base's record is gone.
        meta.b = base
        redis.call('HSET', K.waiting, base, id)
        waitingKnown = true
      end
      added = added + 1
      pending[id] = { meta = meta, payload = o.key == '' and payload or nil, batch = batch }
      if after == '' then store(id, meta, payload) else wait(id, meta, payload, after) end
      if o.window then openWindow(base, o.window) end
      answer(id, old and 2 or 1, meta.r)
    end
  end
end
if schedule ~= '' and latest then redis.call('HSET', K.occurred, schedule, latest) end
flush()
if dups > 0 then redis.call('HINCRBY', K.counts, 'deduplicated', dups) end
if added > 0 then redis.call('HINCRBY', K.counts, 'added', added) end
if replaced > 0 then redis.call('HINCRBY', K.counts, 'replaced', replaced) end
if (wake or stepped) then wakeIdle() end
return out
