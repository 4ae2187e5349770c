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
    { 'unr', queue, ref, id, idQueue }    forget that registration (id left without ref)
  A step for this queue goes to `settle` (LIST), which claims take BATCH at a time: a task with
  10,000 dependents finishes in one short call, and its dependents are released over the next
  calls. A step for another queue goes to `outbox` (ZSET, score = when due): no script touches two
  queues (each is one cluster slot), so a client carries it over (lib/deps.ts), leasing it while it
  does, and a client that dies midway leaves it to be carried again. Every step is idempotent.
  The including script sets DATA, META, DELAYED, DEAD, COUNTS, PROGRESS, BLOCKED, AFTER,
  DEPENDENTS, DEPLIST, SETTLE, OUTBOX and RESULTS (KEYS indices) first, and includes levels,
  events, outcomes and identity before this. ]]

-- This queue's name: its keys' hash tag (names hold no braces).
local QUEUE = string.match(KEYS[META], '{(.*)}')

-- Whether this call added steps (the caller then wakes an idle worker to take them), and steps
-- for other queues (the caller may say so, for its client to carry them at once).
local stepped, outboxed = false, false

-- Sends a step where it is applied: this queue's `settle` list, or the outbox for another queue.
local function route(step, now)
  stepped = true
  if step[2] == QUEUE then
    redis.call('RPUSH', KEYS[SETTLE], cjson.encode(step))
  else
    redis.call('ZADD', KEYS[OUTBOX], now, cjson.encode(step))
    outboxed = true
  end
end

-- How a task that is not live ended, as a dependency sees it: 'dead', 'expired', 'cancelled',
-- 'merged' (and the task that does its work), or 'done'. A task with no record and no kept
-- outcome counts as done. nil while it is live (pending, waiting or active).
local function outcomeOf(id, raw, now)
  if raw then
    if redis.call('ZSCORE', KEYS[DEAD], id) then return 'dead' end
    return nil
  end
  local kept = redis.call('HGET', KEYS[RESULTS], id)
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
  for _, m in ipairs(redis.call('ZRANGEBYLEX', KEYS[DEPENDENTS], from, to)) do
    local dependent, queue = string.match(m, '^[^|]*|([^|]*)|(.*)$')
    route({ 'res', queue, dependent, id, QUEUE, outcome }, now)
  end
  redis.call('ZREMRANGEBYLEX', KEYS[DEPENDENTS], from, to)
end

-- Waiting task id leaves the waiting state before all its dependencies settled (one failed, or it
-- was cancelled): the tasks it still waits on forget it.
local function unwait(id, now)
  redis.call('ZREM', KEYS[BLOCKED], id)
  local from, to = '[' .. id .. '|', '[' .. id .. '|\255'
  for _, m in ipairs(redis.call('ZRANGEBYLEX', KEYS[AFTER], from, to)) do
    local ref, queue = string.match(m, '^[^|]*|([^|]*)|(.*)$')
    route({ 'unr', queue, ref, id, QUEUE }, now)
  end
  redis.call('ZREMRANGEBYLEX', KEYS[AFTER], from, to)
end

-- Queues a task whose dependencies are all done: ready now, or delayed until its run-at.
local function unblock(id, meta, now)
  redis.call('ZREM', KEYS[BLOCKED], id)
  meta.a = nil
  if meta.r > now then
    redis.call('ZADD', KEYS[DELAYED], meta.r, id)
  else
    push(id, meta)
  end
  redis.call('HSET', KEYS[META], id, cjson.encode(meta))
  stepped = true
end

-- Waiting task id's dependency ref (of refQueue) ended with `outcome`. Done: once none is left,
-- the task is queued. Failed (dead, expired, cancelled): as onDependencyFailure says, the task
-- goes dead (meta.df nil), is cancelled ('c'), or counts it as settled and runs ('r'). Merged
-- (an until-start task whose work another task does): the task waits on that one instead.
local function settle(id, ref, refQueue, outcome, into, now, cap)
  if redis.call('ZREM', KEYS[AFTER], id .. '|' .. ref .. '|' .. refQueue) == 0 then return end
  local meta = cjson.decode(redis.call('HGET', KEYS[META], id))
  if outcome == 'merged' and into then
    redis.call('ZADD', KEYS[AFTER], 0, id .. '|' .. into .. '|' .. refQueue)
    route({ 'reg', refQueue, into, id, QUEUE }, now)
    return
  end
  if outcome ~= 'done' and outcome ~= 'merged' and meta.df ~= 'r' then
    unwait(id, now)
    meta.a = nil
    meta.err = 'dependency ' .. refQueue .. '/' .. ref .. ' ' .. outcome
    if meta.df == 'c' then
      redis.call('HDEL', KEYS[DATA], id); redis.call('HDEL', KEYS[META], id); redis.call('HDEL', KEYS[DEPLIST], id)
      if meta.pg then redis.call('HDEL', KEYS[PROGRESS], id) end
      unpoint(id, meta)
      emit(cap, 'type', 'cancelled', 'id', id, 'error', meta.err)
      keepOutcome(id, meta, now, 'cancelled', meta.err)
      fire(id, meta, 'cancelled', now)
    else
      redis.call('ZADD', KEYS[DEAD], now, id)
      redis.call('HINCRBY', KEYS[COUNTS], 'dead', 1)
      emit(cap, 'type', 'dead', 'id', id, 'attempt', meta.n, 'error', meta.err)
      keepOutcome(id, meta, now, 'dead', meta.err)
      fire(id, meta, 'dead', now)
      redis.call('HSET', KEYS[META], id, cjson.encode(meta))
    end
    return
  end
  local left = redis.call('ZRANGEBYLEX', KEYS[AFTER], '[' .. id .. '|', '[' .. id .. '|\255', 'LIMIT', 0, 1)
  if #left == 0 then unblock(id, meta, now) end
end

-- Task ref of this queue: id (of idQueue) waits on it. Registered while ref is live; else id
-- learns at once how it ended (at once too, when it is of this queue).
local function register(ref, id, idQueue, now, cap)
  local raw = redis.call('HGET', KEYS[META], ref)
  local outcome, into = outcomeOf(ref, raw, now)
  if outcome and idQueue == QUEUE then
    settle(id, ref, QUEUE, outcome, into, now, cap)
    return
  elseif outcome then
    route({ 'res', idQueue, id, ref, QUEUE, outcome, into }, now)
    return
  end
  redis.call('ZADD', KEYS[DEPENDENTS], 0, ref .. '|' .. id .. '|' .. idQueue)
  local meta = cjson.decode(raw)
  if not meta.dp then
    meta.dp = 1
    redis.call('HSET', KEYS[META], ref, cjson.encode(meta))
  end
end

-- Applies one step meant for this queue.
local function apply(step, now, cap)
  local op = step[1]
  if op == 'res' then
    settle(step[3], step[4], step[5], step[6], step[7], now, cap)
  elseif op == 'reg' then
    register(step[3], step[4], step[5], now, cap)
  elseif op == 'unr' then
    redis.call('ZREM', KEYS[DEPENDENTS], step[3] .. '|' .. step[4] .. '|' .. step[5])
  end
end

-- Applies up to n steps waiting in `settle`, those that steps applied here add included (a
-- failure passed down a chain).
local function drain(n, now, cap)
  while n > 0 do
    local steps = redis.call('LPOP', KEYS[SETTLE], n)
    if not steps then return end
    n = n - #steps
    for _, step in ipairs(steps) do apply(cjson.decode(step), now, cap) end
  end
end
