--[[ add: included by put after outcomes, gather and windows (not a script itself). A task new to
  the queue, or a dead one revived by putting it again, gets its record and its place: queued
  (store), or waiting on the tasks it names (`after`, include: deps and settle). ]]
-- include: gather, settle, records, record, rerun, many, outcomes, windows, identity, anchor
local add = {}

-- A task put `after` others waits in `blocked` (include: deps): its record is written at once
-- (with what this call gathered before it, which may hold a task it names; the flush also marks
-- the records read up front stale, include: gather), and each task it names learns of it: one of
-- this queue here, one of another queue through a step in the outbox.
-- A task it names that is no longer live settles at once, so one already done counts as done.
function add.wait(C, id, meta, payload, after)
  gather.flush(C)
  local policy, refs = string.sub(after, 1, 1), string.sub(after, 2)
  meta.a, meta.dl = 1, 1
  -- Queued for a later run-at once its dependencies settle: it keeps its put order for ties.
  if meta.r > C.now then gather.order(C, meta) end
  if policy ~= 'd' then meta.df = policy end
  redis.call('HSET', C.K.tasks, id, record.encode(meta))
  redis.call('ZADD', C.K.blocked, C.now, id)
  redis.call('HSET', C.K.deplist, id, refs)
  local named, entries = cjson.decode(refs), {}
  for _, ref in ipairs(named) do
    table.insert(entries, 0); table.insert(entries, id .. '|' .. ref[2] .. '|' .. ref[1])
  end
  many.many('ZADD', C.K.after, entries)
  settle.registerAll(C, named, id, C.now, tonumber(C.A.events))
end

-- A task added (new, or revived: it starts afresh, so its progress and logs go, and the tasks it
-- waited on before: this put's `after`, if any, is its list C.now). Returns its run-at.
function add.add(C, id, base, old, payload, o, after)
  if old then
    redis.call('ZREM', C.K.dead, id)
    records.forgetExtras(C, id, old)
  end
  -- A new run: what was kept of an earlier run at this id is not its outcome (include: outcomes),
  -- nor its state once this run ends without a trace (purged, cancelled, expired: include: history).
  outcomes.dropOutcome(C, id)
  rerun.dropDone(C, id)
  local meta = gather.metaOf(C, o, o.at or (o.delay and anchor.at(C, o.waited) + o.delay) or C.now)
  meta._ = payload
  if id ~= base then
    -- Not at its base (an until-start identity whose task there runs, or a collision): a
    -- pointer lets later lookups find it even once the base's record is gone.
    meta.b = base
    identity.repoint(C, id, meta)
  end
  identity.remember(C, id, meta, C.gather.batch)
  if after == '' then gather.store(C, id, meta, payload) else add.wait(C, id, meta, payload, after) end
  if o.window then windows.openWindow(C, base, o.window) end
  return meta.r
end
