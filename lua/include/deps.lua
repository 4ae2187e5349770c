--[[ deps: included by the scripts that add, finish or remove tasks (not a script itself).
  A task put with `after` waits (state 'waiting', meta.a) in `blocked` (ZSET, score = when put)
  until every task it names is done; then it is queued as any task (ready, or delayed until its
  run-at). Its dependencies:
  - `after` (ZSET, lex, score 0): '<id>|<ref>|<ref queue>' for each dependency of waiting task id
    not yet settled (ref: the hash it named). Settling one removes it, so a step applied twice
    does nothing the second time.
  - `dependents` (ZSET, lex, score 0): '<ref>|<id>|<queue>' for each task of any queue waiting on
    task ref of this queue (meta.dp marks a ref that has some). Removed when ref finishes.
  - `deplist` (HASH): id -> JSON [[queue, hash], ...], everything the task named, in put order,
    for task.dependencies(); it goes with the task's record.
  Ids and hashes have no '|', so a member splits at its first two '|' and the queue is the rest.
  Work on tasks goes in steps, JSON arrays whose second entry is the queue they are for:
    { 'res', queue, id, ref, refQueue, outcome[, into] }  settle id's dependency ref with outcome
    { 'reg', queue, ref, id, idQueue }    register id (of idQueue) as a dependent of ref
    { 'unr', queue, ref, id, idQueue }    forget that registration (only sent to another queue)
  A step for this queue goes to `settle` (LIST), which claims take BATCH at a time: a task with
  10,000 dependents finishes in one short call, and its dependents are released over the next
  calls. A step for another queue goes to `outbox` (ZSET, score = when due): no script touches two
  queues (each is one cluster slot), so a client carries it over (lib/deps.ts), leasing it while it
  does, and a client that dies midway leaves it to be carried again. Every step is idempotent.
  The including script sets DATA, META, DELAYED, DEAD, COUNTS, PROGRESS, LOGS, BLOCKED, AFTER,
  DEPENDENTS, DEPLIST, SETTLE, OUTBOX and RESULTS (KEYS indices) first, and includes levels,
  events, outcomes and identity before this. ]]

-- This queue's name: its keys' hash tag (names hold no braces).
local QUEUE = string.match(K.meta, '{(.*)}')

-- Whether this call added steps (the caller then wakes an idle worker to take them), and steps
-- for other queues (the caller may say so, for its client to carry them at once).
local stepped, outboxed = false, false

-- Refs, members and steps per variadic call: unpack() has a stack limit of a few thousand values
-- ("too many results to unpack"), and a task may have 10,000 dependencies or dependents.
local SLICE = 500

-- Sends steps where they are applied: this queue's `settle` list, or the outbox for another
-- queue. Many at once in a few variadic calls, not one call each (a task with 10,000 dependents).
local function routeAll(steps, now)
  local here, there = {}, {}
  for _, step in ipairs(steps) do
    if step[2] == QUEUE then
      table.insert(here, cjson.encode(step))
    else
      table.insert(there, now); table.insert(there, cjson.encode(step))
    end
  end
  for i = 1, #here, SLICE do redis.call('RPUSH', K.settle, unpack(here, i, math.min(i + SLICE - 1, #here))) end
  for i = 1, #there, 2 * SLICE do redis.call('ZADD', K.outbox, unpack(there, i, math.min(i + 2 * SLICE - 1, #there))) end
  if #steps > 0 then stepped = true end
  if #there > 0 then outboxed = true end
end
local function route(step, now) routeAll({ step }, now) end

-- How a task that is not live ended, as a dependency sees it: 'dead', 'expired', 'cancelled',
-- 'merged' (and the task that does its work), or 'done'. A task with no record and no kept
-- outcome counts as done. nil while it is live (pending, waiting or active).
local function outcomeOf(id, raw, now)
  if raw then
    if redis.call('ZSCORE', K.dead, id) then return 'dead' end
    return nil
  end
  local kept = redis.call('HGET', K.results, id)
  if not kept then return 'done' end
  local state, untilAt, body = string.match(kept, '^([^|]*)|[^|]*|[^|]*|([^|]*)|(.*)$')
  if tonumber(untilAt) <= now then return 'done' end
  if state == 'merged' then return state, body end
  return state
end

-- Task id finished for good (done, dead, expired, cancelled): each task waiting on it is told.
local function fire(id, meta, outcome, now)
  if not meta.dp then return end
  meta.dp = nil
  local from, to = '[' .. id .. '|', '[' .. id .. '|\255'
  local steps = {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K.dependents, from, to)) do
    local dependent, queue = string.match(m, '^[^|]*|([^|]*)|(.*)$')
    table.insert(steps, { 'res', queue, dependent, id, QUEUE, outcome })
  end
  routeAll(steps, now)
  redis.call('ZREMRANGEBYLEX', K.dependents, from, to)
end

-- Waiting task id leaves the waiting state before all its dependencies settled (one failed, or it
-- was cancelled): the tasks it still waits on forget it. Those of this queue forget it here and
-- now, not through `settle`: a ZREM costs less than the step, and a step left there for a later
-- claim would remove the registration of the same task put again meanwhile (same id), which would
-- then wait for ever.
local function unwait(id, now)
  redis.call('ZREM', K.blocked, id)
  local from, to = '[' .. id .. '|', '[' .. id .. '|\255'
  local mine, steps = {}, {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K.after, from, to)) do
    local ref, queue = string.match(m, '^[^|]*|([^|]*)|(.*)$')
    if queue == QUEUE then
      table.insert(mine, ref .. '|' .. id .. '|' .. QUEUE)
    else
      table.insert(steps, { 'unr', queue, ref, id, QUEUE })
    end
  end
  for i = 1, #mine, SLICE do redis.call('ZREM', K.dependents, unpack(mine, i, math.min(i + SLICE - 1, #mine))) end
  routeAll(steps, now)
  redis.call('ZREMRANGEBYLEX', K.after, from, to)
end

-- Queues a task whose dependencies are all done: ready now, or delayed until its run-at.
local function unblock(id, meta, now)
  redis.call('ZREM', K.blocked, id)
  meta.a = nil
  if meta.r > now then
    redis.call('ZADD', K.delayed, meta.r, id)
  else
    push(id, meta)
  end
  redis.call('HSET', K.meta, id, cjson.encode(meta))
  stepped = true
end

-- Waiting task id's dependency ref (of refQueue) ended with `outcome`. Done: once none is left,
-- the task is queued. Failed (dead, expired, cancelled): as onDependencyFailure says, the task
-- goes dead (meta.df nil), is cancelled ('c'), or counts it as settled and runs ('r'). Merged
-- (an until-start task whose work another task does): the task waits on that one instead.
local function settle(id, ref, refQueue, outcome, into, now, cap)
  if redis.call('ZREM', K.after, id .. '|' .. ref .. '|' .. refQueue) == 0 then return end
  local meta = cjson.decode(redis.call('HGET', K.meta, id))
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
      redis.call('HDEL', K.data, id); redis.call('HDEL', K.meta, id); redis.call('HDEL', K.deplist, id)
      if meta.pg then redis.call('HDEL', K.progress, id) end
      if meta.lg then redis.call('HDEL', K.logs, id) end
      unpoint(id, meta)
      emitFor(cap, meta, 'type', 'cancelled', 'id', id, 'error', meta.err)
      keepOutcome(id, meta, now, 'cancelled', meta.err)
      fire(id, meta, 'cancelled', now)
    else
      redis.call('ZADD', K.dead, now, id)
      redis.call('HINCRBY', K.counts, 'dead', 1)
      countNamed(K.counts, 'dead', meta)
      emitFor(cap, meta, 'type', 'dead', 'id', id, 'attempt', meta.n, 'error', meta.err)
      keepOutcome(id, meta, now, 'dead', meta.err)
      fire(id, meta, 'dead', now)
      redis.call('HSET', K.meta, id, cjson.encode(meta))
    end
    return
  end
  local left = redis.call('ZRANGEBYLEX', K.after, '[' .. id .. '|', '[' .. id .. '|\255', 'LIMIT', 0, 1)
  if #left == 0 then unblock(id, meta, now) end
end

-- Task ref of this queue: id (of idQueue) waits on it. Registered while ref is live; else id
-- learns at once how it ended (at once too, when it is of this queue).
local function register(ref, id, idQueue, now, cap)
  local raw = redis.call('HGET', K.meta, ref)
  local outcome, into = outcomeOf(ref, raw, now)
  if outcome and idQueue == QUEUE then
    settle(id, ref, QUEUE, outcome, into, now, cap)
    return
  elseif outcome then
    route({ 'res', idQueue, id, ref, QUEUE, outcome, into }, now)
    return
  end
  redis.call('ZADD', K.dependents, 0, ref .. '|' .. id .. '|' .. idQueue)
  local meta = cjson.decode(raw)
  if not meta.dp then
    meta.dp = 1
    redis.call('HSET', K.meta, ref, cjson.encode(meta))
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
  for i = 1, #mine, SLICE do
    local part = { unpack(mine, i, math.min(i + SLICE - 1, #mine)) }
    local raws = redis.call('HMGET', K.meta, unpack(part))
    local dead = redis.call('ZMSCORE', K.dead, unpack(part))
    local members, marked = {}, {}
    for j, ref in ipairs(part) do
      if raws[j] and not dead[j] then
        table.insert(members, 0); table.insert(members, ref .. '|' .. id .. '|' .. QUEUE)
        local meta = cjson.decode(raws[j])
        if not meta.dp then
          meta.dp = 1
          table.insert(marked, ref); table.insert(marked, cjson.encode(meta))
        end
      else
        table.insert(ended, ref)
      end
    end
    if #members > 0 then redis.call('ZADD', K.dependents, unpack(members)) end
    if #marked > 0 then redis.call('HSET', K.meta, unpack(marked)) end
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
