--[[ deps: included by the scripts that add, finish or remove tasks (not a script itself), each
  with settle right after it. A task put with `after` waits (state 'waiting', meta.a) in `blocked`
  (ZSET, score = when put) until every task it names is done; then it is queued as any task
  (ready, or delayed until its run-at). Its dependencies:
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
  A step for this queue goes to `settle` (LIST), applied a batch a call by the call that made it,
  then by that call's client and by claims: a task with 10,000 dependents finishes in one short
  call. A step for another queue goes to `outbox` (ZSET, score = when due): no script touches two
  queues (each is one cluster slot), so a client carries it over (lib/features/deps.ts), leasing it while it
  does, and a client that dies midway leaves it to be carried again. Every step is idempotent.
  Here: routing steps, how a task ended (outcomeOf), a task ending (fire), leaving the wait early
  (unwait) or done (unblock); applying them: include: settle. ]]
-- include: record, many, ready
local deps = {}

-- This queue's name: its keys' hash tag (names hold no braces), read once a call (C.queue).
function deps.queue(C)
  if not C.queue then C.queue = string.match(C.K.tasks, '{(.*)}') end
  return C.queue
end

-- C.stepped: whether this call added steps (the caller then wakes an idle worker to take them);
-- C.outboxed: steps for other queues (the caller may say so, for its client to carry them at once).
-- Sends steps where they are applied: this queue's `settle` list, or the outbox for another
-- queue. Many at once in a few variadic calls, not one call each (a task with 10,000 dependents).
function deps.routeAll(C, steps, now)
  local here, there = {}, {}
  for _, step in ipairs(steps) do
    if step[2] == deps.queue(C) then
      table.insert(here, cjson.encode(step))
    else
      table.insert(there, now); table.insert(there, cjson.encode(step))
    end
  end
  many.many('RPUSH', C.K.settle, here)
  many.many('ZADD', C.K.outbox, there)
  if #steps > 0 then C.stepped = true end
  if #there > 0 then C.outboxed = true end
end
function deps.route(C, step, now) deps.routeAll(C, { step }, now) end

-- How a task that is not live ended, as a dependency sees it: 'dead', 'expired', 'cancelled',
-- 'merged' (and the task that does its work), or 'done'. A task with no record and no kept
-- outcome counts as done. nil while it is live (pending, waiting or active).
function deps.outcomeOf(C, id, raw, now)
  if raw then
    if redis.call('ZSCORE', C.K.dead, id) then return 'dead' end
    return nil
  end
  local kept = redis.call('HGET', C.K.results, id)
  if not kept then return 'done' end
  local state, untilAt, body = string.match(kept, '^([^|]*)|[^|]*|[^|]*|([^|]*)|(.*)$')
  if tonumber(untilAt) <= now then return 'done' end
  if state == 'merged' then return state, body end
  return state
end

-- Task id ended (done, dead, expired, cancelled; or merged `into` its copy): its waiters learn.
function deps.fire(C, id, meta, outcome, now, into)
  if not meta.dp then return end
  meta.dp = nil
  local from, to = '[' .. id .. '|', '[' .. id .. '|\255'
  local steps = {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', C.K.dependents, from, to)) do
    local dependent, queue = string.match(m, '^[^|]*|([^|]*)|(.*)$')
    table.insert(steps, { 'res', queue, dependent, id, deps.queue(C), outcome, into })
  end
  deps.routeAll(C, steps, now)
  redis.call('ZREMRANGEBYLEX', C.K.dependents, from, to)
end

-- Waiting task id leaves the waiting state before all its dependencies settled (one failed, or it
-- was cancelled): the tasks it still waits on forget it. Those of this queue forget it here and
-- now, not through `settle`: a ZREM costs less than the step, and a step left there for a later
-- claim would remove the registration of the same task put again meanwhile (same id), which would
-- then wait for ever.
function deps.unwait(C, id, now)
  redis.call('ZREM', C.K.blocked, id)
  local from, to = '[' .. id .. '|', '[' .. id .. '|\255'
  local mine, steps = {}, {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', C.K.after, from, to)) do
    local ref, queue = string.match(m, '^[^|]*|([^|]*)|(.*)$')
    if queue == deps.queue(C) then
      table.insert(mine, ref .. '|' .. id .. '|' .. deps.queue(C))
    else
      table.insert(steps, { 'unr', queue, ref, id, deps.queue(C) })
    end
  end
  many.many('ZREM', C.K.dependents, mine)
  deps.routeAll(C, steps, now)
  redis.call('ZREMRANGEBYLEX', C.K.after, from, to)
end

-- Queues a task whose dependencies are all done: ready now, or delayed until its run-at.
function deps.unblock(C, id, meta, now)
  redis.call('ZREM', C.K.blocked, id)
  meta.a = nil
  if meta.r > now then
    redis.call('ZADD', C.K.delayed, meta.r, id)
  else
    ready.push(C, id, meta)
  end
  redis.call('HSET', C.K.tasks, id, record.encode(meta))
  C.stepped = true
end

-- Whether the client has steps to carry on with: for other queues, or left in `settle` past this
-- call's batch (a failure down a long chain), which it applies itself: no worker needs to claim.
function deps.toCarry(C) return C.outboxed or (C.stepped and redis.call('LLEN', C.K.settle) > 0) end
