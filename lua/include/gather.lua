--[[ gather: included by put (not a script itself). The records put writes and how it writes
  them: a task's record as its options make it (parse, metaOf), and the writes of records and of
  their places in the queue, gathered (store) and made a few variadic calls per chunk (flush),
  and whether they call for an idle worker (woken). Uses put's `now` and `count` (declared before
  it); put calls readEarliest before its first store. ]]
-- include: record, options, many, groups

-- Writes are gathered and made at the end (flush), a few variadic calls per chunk instead of
-- several per task. `pending` (include: identity) holds what this call is about to write, so a
-- duplicate within the call is found.
local toWrite, delayed = {}, {}
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
  many.many('HSET', K.tasks, toWrite)
  many.many('RPUSH', K.ready, queued[0])
  if #grouped > 0 then
    many.many('ZADD', K.grouped, grouped)
    local latest = {}
    for lane in pairs(lanes) do table.insert(latest, lane); table.insert(latest, C.tagged.lanes[lane]) end
    many.many('HSET', K.gtags, latest)
    redis.call('ZADD', K.levels, 0.5, 'g')
  end
  for level = 1, 9 do
    if #queued[level] > 0 then
      many.many('RPUSH', K['ready' .. level], queued[level])
      redis.call('ZADD', K.levels, level, level)
    end
  end
  many.many('ZADD', K.delayed, delayed)
  toWrite, delayed, grouped, lanes = {}, {}, {}, {}
  for level = 0, 9 do queued[level] = {} end
  stale, batch = true, batch + 1
end

-- Gathers the writes of a task record and of its place: ready now, or delayed until its run-at.
-- The queue's earliest run-at: a new earliest means an idle worker must re-arm its timer.
local earliest
-- Whether a stored task calls for an idle worker: it is ready now, or the new earliest run-at.
local woke = false
local function woken() return woke end
local function readEarliest() earliest = tonumber(redis.call('ZRANGE', K.delayed, 0, 0, 'WITHSCORES')[2]) end
-- A delayed task's put order (`o`), for ties: tasks due at one run-at are promoted in put order
-- (include: upkeep), where the `delayed` ZSET alone would order them by id (a hash). The queue's
-- counter `order` in `counts` is read once a call, at the first task that needs it, taking one
-- number per task of the call; a task that has an order (replaced, debounced) keeps it. A ready
-- task needs none: its list is in put order already.
local orders = nil
local function order(meta)
  if meta.o then return end
  if not orders then orders = redis.call('HINCRBY', K.counts, 'order', count) - count end
  orders = orders + 1
  meta.o = orders
end
local function store(id, meta, payload)
  if payload then meta._ = payload end
  if meta.r > now then order(meta) end
  table.insert(toWrite, id); table.insert(toWrite, record.encode(meta))
  if meta.r <= now then
    if meta.g then
      table.insert(grouped, groups.tagOf(C, meta)); table.insert(grouped, id)
      lanes[groups.laneOf(meta)] = true
    else
      table.insert(queued[meta.p or 0], id)
    end
    woke = true
  else
    table.insert(delayed, meta.r); table.insert(delayed, id)
    if not earliest or meta.r < earliest then earliest, woke = meta.r, true end
  end
end

-- A task's metadata as these options make it; `old` (a replaced task) keeps its history.
local function metaOf(o, runAt, old)
  local meta = { r = runAt, m = o.attempts, n = old and old.n or 0, c = old and old.c or now, err = old and old.err, o = old and old.o }
  if o.level > 0 then meta.p = o.level end
  if o.group ~= '' then meta.g = o.group end
  if o.key ~= '' then meta.k = o.key end
  if o.name ~= '' then meta.nm = o.name end
  meta.tp = o.trace ~= '' and o.trace or (old and old.tp)
  meta.kr = o.keep or (old and old.kr)
  meta.to = o.timeout or (old and old.to)
  -- What the queue keeps once it finishes (put's `keep`), and the schedule that put it: only when given.
  meta.kp, meta.sc = o.caps or (old and old.kp), o.schedule or (old and old.sc)
  -- A replaced task keeps its progress and logs (from earlier attempts): the flags say they exist.
  meta.pg, meta.lg = old and old.pg, old and old.lg
  if o.expire then meta.x = o.expire; meta.e = runAt + o.expire end
  if string.find(o.mode, 's', 1, true) then meta.us = 1 end
  return meta
end
