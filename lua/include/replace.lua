--[[ replace: included by put (not a script itself). onDuplicate 'replace' and 'debounce': a put
  that finds its identity's task still pending (delayed or ready, never leased now) gives it this
  put's options (priority, group, expire, maxAttempts, unique) and, for a `key` identity, its
  data. The run-at moves when this put gives `delay` or `at` (replace), or always, to its `delay`
  counted from the put() call (include: anchor) or its `at` (debounce: the task runs once puts
  have stopped for `delay`). The task keeps its deliveries, creation time and last error; a ready
  task that stays ready at the same level in the same group keeps its place in line, any other is
  queued anew. ]]
-- include: gather, record, ready, identity, anchor
local replace = {}

function replace.replace(C, id, old, payload, o)
  -- Added earlier in this same call: its writes go out first, so it is moved like any other.
  local p = identity.pending(C, id)
  if p and p.batch == C.gather.batch then gather.flush(C) end
  local runAt = old.r
  if string.find(o.mode, 'd', 1, true) or o.at or o.delay then runAt = o.at or (o.delay and anchor.at(C, o.waited) + o.delay) or C.now end
  local meta = gather.metaOf(C, o, runAt, old)
  meta.b = old.b
  meta._ = old._
  local wasDelayed = redis.call('ZSCORE', C.K.delayed, id)
  local newData = o.key ~= '' and payload or nil
  if not wasDelayed and runAt <= C.now and (meta.p or 0) == (old.p or 0) and meta.g == old.g then
    meta.q = old.q
    if newData then meta._ = newData end
    redis.call('HSET', C.K.tasks, id, record.encode(meta))
  else
    if wasDelayed then redis.call('ZREM', C.K.delayed, id) else ready.unqueue(C, id, old, C.K.moved) end
    gather.store(C, id, meta, newData)
  end
  identity.remember(C, id, meta, C.gather.batch)
  return runAt
end
