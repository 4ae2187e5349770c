--[[ settle: included right after deps (not a script itself): the side that applies its steps. A
  waiting task learns how a dependency ended (settle), a dependent registers with a task of this
  queue (register; registerAll for a task just put), and steps in `settle` are applied (drain). ]]
-- include: record, many, logs, events, outcomes, identity
-- Waiting task id's dependency ref (of refQueue) ended with `outcome`. Done: once none is left,
-- the task is queued. Failed (dead, expired, cancelled): as onDependencyFailure says, the task
-- goes dead (meta.df nil), is cancelled ('c'), or counts it as settled and runs ('r'). Merged
-- (an until-start task whose work another task does): the task waits on that one instead.
local function settle(id, ref, refQueue, outcome, into, now, cap)
  if redis.call('ZREM', K.after, id .. '|' .. ref .. '|' .. refQueue) == 0 then return end
  local meta = record.decode(redis.call('HGET', K.tasks, id))
  if outcome == 'merged' and into then
    redis.call('ZADD', K.after, 0, id .. '|' .. into .. '|' .. refQueue)
    route({ 'reg', refQueue, into, id, QUEUE }, now)
    return
  end
  if outcome ~= 'done' and outcome ~= 'merged' and meta.df ~= 'r' then
    unwait(id, now)
    meta.a = nil
    meta.err = 'dependency ' .. refQueue .. '/' .. ref .. ' ' .. outcome
    if meta.df == 'c' then
      redis.call('HDEL', K.tasks, id); redis.call('HDEL', K.deplist, id)
      if meta.pg then redis.call('HDEL', K.progress, id) end
      if meta.lg then logs.forgetLog(C, id) end
      identity.unpoint(C, id, meta)
      events.emitFor(C, cap, meta, 'type', 'cancelled', 'id', id, 'error', meta.err)
      outcomes.keepOutcome(C, id, meta, now, 'cancelled', meta.err)
      fire(id, meta, 'cancelled', now)
    else
      redis.call('ZADD', K.dead, now, id)
      redis.call('HINCRBY', K.counts, 'dead', 1)
      events.countNamed(K.counts, 'dead', meta)
      events.emitFor(C, cap, meta, 'type', 'dead', 'id', id, 'attempt', meta.n, 'error', meta.err)
      outcomes.keepOutcome(C, id, meta, now, 'dead', meta.err)
      fire(id, meta, 'dead', now)
      redis.call('HSET', K.tasks, id, record.encode(meta))
    end
    return
  end
  local left = redis.call('ZRANGEBYLEX', K.after, '[' .. id .. '|', '[' .. id .. '|\255', 'LIMIT', 0, 1)
  if #left == 0 then unblock(id, meta, now) end
end
-- Task ref of this queue: id (of idQueue) waits on it. Registered while ref is live; else id
-- learns at once how it ended (at once too, when it is of this queue).
local function register(ref, id, idQueue, now, cap)
  local raw = redis.call('HGET', K.tasks, ref)
  local outcome, into = outcomeOf(ref, raw, now)
  if outcome and idQueue == QUEUE then
    settle(id, ref, QUEUE, outcome, into, now, cap)
    return
  elseif outcome then
    route({ 'res', idQueue, id, ref, QUEUE, outcome, into }, now)
    return
  end
  redis.call('ZADD', K.dependents, 0, ref .. '|' .. id .. '|' .. idQueue)
  local meta = record.decode(raw)
  if not meta.dp then
    meta.dp = 1
    redis.call('HSET', K.tasks, ref, record.encode(meta))
  end
end
-- Task id of this queue, just put, waits on `refs` ([queue, hash] pairs): those of other queues
-- learn of it through the outbox; those of this queue are registered here, a slice of refs per
-- read and write rather than a few calls each. The ones no longer live settle last, so that a
-- failed one finds every registration made and takes it back (unwait) rather than leave the
-- registrations made after it behind.
local function registerAll(refs, id, now, cap)
  local mine, steps, ended = {}, {}, {}
  for _, ref in ipairs(refs) do
    if ref[1] == QUEUE then table.insert(mine, ref[2]) else table.insert(steps, { 'reg', ref[1], ref[2], id, QUEUE }) end
  end
  routeAll(steps, now)
  for part in many.slices(mine) do
    local raws = redis.call('HMGET', K.tasks, unpack(part))
    local dead = redis.call('ZMSCORE', K.dead, unpack(part))
    local members, marked = {}, {}
    for j, ref in ipairs(part) do
      if raws[j] and not dead[j] then
        table.insert(members, 0); table.insert(members, ref .. '|' .. id .. '|' .. QUEUE)
        local meta = record.decode(raws[j])
        if not meta.dp then
          meta.dp = 1
          table.insert(marked, ref); table.insert(marked, record.encode(meta))
        end
      else
        table.insert(ended, ref)
      end
    end
    many.many('ZADD', K.dependents, members)
    many.many('HSET', K.tasks, marked)
  end
  for _, ref in ipairs(ended) do register(ref, id, QUEUE, now, cap) end
end

-- Applies one step meant for this queue.
local function apply(step, now, cap)
  local op = step[1]
  if op == 'res' then
    settle(step[3], step[4], step[5], step[6], step[7], now, cap)
  elseif op == 'reg' then
    register(step[3], step[4], step[5], now, cap)
  elseif op == 'unr' then
    redis.call('ZREM', K.dependents, step[3] .. '|' .. step[4] .. '|' .. step[5])
  end
end

-- Applies up to n steps waiting in `settle`, those that steps applied here add included (a
-- failure passed down a chain).
local function drain(n, now, cap)
  while n > 0 do
    local steps = redis.call('LPOP', K.settle, n)
    if not steps then return end
    n = n - #steps
    for _, step in ipairs(steps) do apply(cjson.decode(step), now, cap) end
  end
end
