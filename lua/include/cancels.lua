--[[ cancels: included by the scripts that cancel a running task (not a script itself). cancel
  with `running` marks an active task (markCancel): its record gets meta.cx (when the cancel was asked)
  and loses its lease token (meta.t false, which no holder's token equals: from then on its ack,
  fail, extend, progress and log are refused, as for a lease lost), and `cancels` (ZSET, lex,
  score 0, C.K.cancels) gets '<worker>|<id>', so the holder's next beat finds its own marks in one
  range read, with no read per task. The task stays active until then, so its concurrency places
  stay taken while its handler may still run. The beat ends it (endCancel) and tells the holder, which
  aborts the handler's signal; a holder that died beats no more, so its lease lapses and the claim
  that finds it ends it the same way instead of running it again (include: upkeep).
  Needs record, groups, events, outcomes, deps and records before it. ]]
-- include: deps, records, events, outcomes, record, groups
local cancels = {}

-- Marks active task id (meta: its decoded record) as cancelled while it runs. Returns its holder.
function cancels.markCancel(C, id, meta, now)
  meta.cx, meta.t = now, false
  redis.call('HSET', C.K.tasks, id, record.encode(meta))
  if meta.w then redis.call('ZADD', C.K.cancels, 0, meta.w .. '|' .. id) end
  return meta.w or ''
end

-- Ends marked task id (meta: its record, decoded or peeked): it leaves the active set, its group's
-- place is given back, and it ends `cancelled` as a pending task's cancel does (its event, its
-- outcome kept with keepResult, its waiters told), counted in `counts` as 'cancelled'. Returns how
-- many parked tasks of its group moved back.
function cancels.endCancel(C, id, meta, now, cap)
  redis.call('ZREM', C.K.active, id)
  if meta.w then
    local member = meta.w .. '|' .. id
    redis.call('ZREM', C.K.held, member)
    redis.call('ZREM', C.K.cancels, member)
  end
  local refilled = groups.finished(C, meta)
  redis.call('HINCRBY', C.K.counts, 'cancelled', 1)
  events.emitFor(C, cap, meta, 'type', 'cancelled', 'id', id, 'attempt', meta.n)
  outcomes.keepOutcome(C, id, meta, now, 'cancelled')
  deps.fire(C, id, meta, 'cancelled', now)
  records.forget(C, id, meta)
  return refilled
end
