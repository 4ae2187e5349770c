--[[ gather: included by put (not a script itself). The records put writes and how it writes
  them: a task's record as its options make it (parse, metaOf), and the writes of records and of
  their places in the queue, gathered (store) and made a few variadic calls per chunk (flush),
  and whether they call for an idle worker (woken). The call's gathering is C.gather: put starts
  it (start, with its count of tasks, before its first store). ]]
-- include: record, options, many, groups
local gather = {}

-- Starts the call's gathering. Writes are gathered and made at the end (flush), a few variadic
-- calls per chunk instead of several per task; `pending` (include: identity) holds what this call
-- is about to write, so a duplicate within the call is found. In C.gather:
-- - toWrite, delayed: record fields and delayed (score, id) pairs to write;
-- - queued: ready ids by priority level (0-9), each pushed at its list's tail (FIFO in a level);
-- - grouped, lanes: grouped ready tasks (tag, id pairs) and the lanes whose latest tag they moved;
-- - stale: set once a flush has written part of the call (the base records read up front are then
--   stale); batch counts flushes, so a task added since the last one is known as not yet written;
-- - earliest: the queue's earliest run-at (a new earliest means an idle worker must re-arm its
--   timer), read at the call's first delayed task (a put of ready tasks never reads it: false when
--   read and none); woke: whether a stored task calls for an idle worker;
-- - count, orders: the call's tasks, and the put order last taken (order).
function gather.start(C, count)
  C.gather = {
    toWrite = {}, delayed = {}, queued = {}, grouped = {}, lanes = {}, stale = false, batch = 0, woke = false, count = count,
  }
  for level = 0, 9 do C.gather.queued[level] = {} end
end

-- Makes the gathered writes.
function gather.flush(C)
  local g = C.gather
  many.many('HSET', C.K.tasks, g.toWrite)
  many.many('RPUSH', C.K.ready, g.queued[0])
  if #g.grouped > 0 then
    many.many('ZADD', C.K.grouped, g.grouped)
    local latest = {}
    for lane in pairs(g.lanes) do table.insert(latest, lane); table.insert(latest, C.tagged.lanes[lane]) end
    many.many('HSET', C.K.gtags, latest)
    redis.call('ZADD', C.K.levels, 0.5, 'g')
  end
  for level = 1, 9 do
    if #g.queued[level] > 0 then
      many.many('RPUSH', C.K['ready' .. level], g.queued[level])
      redis.call('ZADD', C.K.levels, level, level)
    end
  end
  many.many('ZADD', C.K.delayed, g.delayed)
  g.toWrite, g.delayed, g.grouped, g.lanes = {}, {}, {}, {}
  for level = 0, 9 do g.queued[level] = {} end
  g.stale, g.batch = true, g.batch + 1
end

-- Whether a stored task calls for an idle worker: it is ready now, or the new earliest run-at.
function gather.woken(C) return C.gather.woke end

-- A delayed task's put order (`o`), for ties: tasks due at one run-at are promoted in put order
-- (include: upkeep), where the `delayed` ZSET alone would order them by id (a hash). The queue's
-- counter `order` in `counts` is read once a call, at the first task that needs it, taking one
-- number per task of the call; a task that has an order (replaced, debounced) keeps it. A ready
-- task needs none: its list is in put order already.
function gather.order(C, meta)
  if meta.o then return end
  local g = C.gather
  if not g.orders then g.orders = redis.call('HINCRBY', C.K.counts, 'order', g.count) - g.count end
  g.orders = g.orders + 1
  meta.o = g.orders
end

-- Gathers the writes of a task record and of its place: ready now, or delayed until its run-at.
function gather.store(C, id, meta, payload)
  local g, now = C.gather, C.now
  if payload then meta._ = payload end
  if meta.r > now then gather.order(C, meta) end
  table.insert(g.toWrite, id); table.insert(g.toWrite, record.encode(meta))
  if meta.r <= now then
    if meta.g then
      table.insert(g.grouped, groups.tagOf(C, meta)); table.insert(g.grouped, id)
      g.lanes[groups.laneOf(meta)] = true
    else
      table.insert(g.queued[meta.p or 0], id)
    end
    g.woke = true
  else
    -- Read before this call writes a delayed task: a flush writes them only once one was stored.
    if g.earliest == nil then g.earliest = tonumber(redis.call('ZRANGE', C.K.delayed, 0, 0, 'WITHSCORES')[2]) or false end
    table.insert(g.delayed, meta.r); table.insert(g.delayed, id)
    if not g.earliest or meta.r < g.earliest then g.earliest, g.woke = meta.r, true end
  end
end

-- A task's metadata as these options make it; `old` (a replaced task) keeps its history.
function gather.metaOf(C, o, runAt, old)
  local meta = { r = runAt, m = o.attempts, n = old and old.n or 0, c = old and old.c or C.now, err = old and old.err, o = old and old.o }
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
