--[[ settle: included right after deps (not a script itself): the side that applies its steps. A
  waiting task learns how a dependency ended (settle), a dependent registers with a task of this
  queue (register; registerAll for a task just put), and steps in `settle` are applied (drain). ]]
-- include: deps, record, many, logs, events, outcomes, identity
local settle = {}

-- Waiting task id's dependency ref (of refQueue) ended with `outcome`. Done: once none is left,
-- the task is queued. Failed (dead, expired, cancelled): as onDependencyFailure says, the task
-- goes dead (meta.df nil), is cancelled ('c'), or counts it as settled and runs ('r'). Merged
-- (an until-start task whose work another task does): the task waits on that one instead.
function settle.settle(C, id, ref, refQueue, outcome, into, now, cap)
  if redis.call('ZREM', C.K.after, id .. '|' .. ref .. '|' .. refQueue) == 0 then return end
  local meta = record.decode(redis.call('HGET', C.K.tasks, id))
  if outcome == 'merged' and into then
    redis.call('ZADD', C.K.after, 0, id .. '|' .. into .. '|' .. refQueue)
    deps.route(C, { 'reg', refQueue, into, id, deps.queue(C) }, now)
    return
  end
  if outcome ~= 'done' and outcome ~= 'merged' and meta.df ~= 'r' then
    deps.unwait(C, id, now)
    meta.a = nil
    meta.err = 'dependency ' .. refQueue .. '/' .. ref .. ' ' .. outcome
    if meta.df == 'c' then
      redis.call('HDEL', C.K.tasks, id); redis.call('HDEL', C.K.deplist, id)
      if meta.pg then redis.call('HDEL', C.K.progress, id) end
      if meta.lg then logs.forgetLog(C, id) end
      identity.unpoint(C, id, meta)
      events.emitFor(C, cap, meta, 'type', 'cancelled', 'id', id, 'error', meta.err)
      outcomes.keepOutcome(C, id, meta, now, 'cancelled', meta.err)
      deps.fire(C, id, meta, 'cancelled', now)
    else
      redis.call('ZADD', C.K.dead, now, id)
      redis.call('HINCRBY', C.K.counts, 'dead', 1)
      events.countNamed(C.K.counts, 'dead', meta)
      events.emitFor(C, cap, meta, 'type', 'dead', 'id', id, 'attempt', meta.n, 'error', meta.err)
      outcomes.keepOutcome(C, id, meta, now, 'dead', meta.err)
      deps.fire(C, id, meta, 'dead', now)
      redis.call('HSET', C.K.tasks, id, record.encode(meta))
    end
    return
  end
  local left = redis.call('ZRANGEBYLEX', C.K.after, '[' .. id .. '|', '[' .. id .. '|\255', 'LIMIT', 0, 1)
  if #left == 0 then deps.unblock(C, id, meta, now) end
end
-- Task ref of this queue: id (of idQueue) waits on it. Registered while ref is live; else id
-- learns at once how it ended (at once too, when it is of this queue).
function settle.register(C, ref, id, idQueue, now, cap)
  local raw = redis.call('HGET', C.K.tasks, ref)
  local outcome, into = deps.outcomeOf(C, ref, raw, now)
  if outcome and idQueue == deps.queue(C) then
    settle.settle(C, id, ref, deps.queue(C), outcome, into, now, cap)
    return
  elseif outcome then
    deps.route(C, { 'res', idQueue, id, ref, deps.queue(C), outcome, into }, now)
    return
  end
  redis.call('ZADD', C.K.dependents, 0, ref .. '|' .. id .. '|' .. idQueue)
  local meta = record.decode(raw)
  if not meta.dp then
    meta.dp = 1
    redis.call('HSET', C.K.tasks, ref, record.encode(meta))
  end
end
-- Task id of this queue, just put, waits on `refs` ([queue, hash] pairs): those of other queues
-- learn of it through the outbox; those of this queue are registered here, a slice of refs per
-- read and write rather than a few calls each. The ones no longer live settle last, so that a
-- failed one finds every registration made and takes it back (unwait) rather than leave the
-- registrations made after it behind.
function settle.registerAll(C, refs, id, now, cap)
  local mine, steps, ended = {}, {}, {}
  for _, ref in ipairs(refs) do
    if ref[1] == deps.queue(C) then table.insert(mine, ref[2]) else table.insert(steps, { 'reg', ref[1], ref[2], id, deps.queue(C) }) end
  end
  deps.routeAll(C, steps, now)
  for part in many.slices(mine) do
    local raws = redis.call('HMGET', C.K.tasks, unpack(part))
    local dead = redis.call('ZMSCORE', C.K.dead, unpack(part))
    local members, marked = {}, {}
    for j, ref in ipairs(part) do
      if raws[j] and not dead[j] then
        table.insert(members, 0); table.insert(members, ref .. '|' .. id .. '|' .. deps.queue(C))
        local meta = record.decode(raws[j])
        if not meta.dp then
          meta.dp = 1
          table.insert(marked, ref); table.insert(marked, record.encode(meta))
        end
      else
        table.insert(ended, ref)
      end
    end
    many.many('ZADD', C.K.dependents, members)
    many.many('HSET', C.K.tasks, marked)
  end
  for _, ref in ipairs(ended) do settle.register(C, ref, id, deps.queue(C), now, cap) end
end

-- Applies one step meant for this queue.
function settle.apply(C, step, now, cap)
  local op = step[1]
  if op == 'res' then
    settle.settle(C, step[3], step[4], step[5], step[6], step[7], now, cap)
  elseif op == 'reg' then
    settle.register(C, step[3], step[4], step[5], now, cap)
  elseif op == 'unr' then
    redis.call('ZREM', C.K.dependents, step[3] .. '|' .. step[4] .. '|' .. step[5])
  end
end

-- Applies up to n steps waiting in `settle`, those that steps applied here add included (a
-- failure passed down a chain).
function settle.drain(C, n, now, cap)
  while n > 0 do
    local steps = redis.call('LPOP', C.K.settle, n)
    if not steps then return end
    n = n - #steps
    for _, step in ipairs(steps) do settle.apply(C, cjson.decode(step), now, cap) end
  end
end
