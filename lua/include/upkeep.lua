--[[ upkeep: claim's housekeeping, on the server's clock, before it leases: due tasks become ready,
  lapsed leases end their attempt (include: attempt), or end the task when it was cancelled while
  it ran (include: cancels: its holder died before its beat could), and the dead set is trimmed.
  Each step looks at the earliest member first, so an idle queue pays one read per structure; each
  does at most `batch` tasks a call, so a backlog never stalls Redis (the rest waits a call). ]]
-- include: attempt, records, many, ready, cancels, heads, events, record
local upkeep = {}

-- The lowest score of ZSET `key` (its earliest run-at, deadline or due step), or nil when empty.
function upkeep.earliest(key) return tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) end

-- Whether due entry a (run-at, record, id) goes before b: run-at, then put order (creation time,
-- then `o`, which put gives delayed tasks: include: gather), then id. The `delayed` ZSET breaks a
-- tie by member, a hash, which is no order at all.
local function before(a, b)
  if a.at ~= b.at then return a.at < b.at end
  if a.meta.c ~= b.meta.c then return a.meta.c < b.meta.c end
  if (a.meta.o or 0) ~= (b.meta.o or 0) then return (a.meta.o or 0) < (b.meta.o or 0) end
  return a.id < b.id
end

-- Moves up to `batch` due tasks to the ready lists, in run-at order and ties in put order. A run-at
-- whose tasks the batch cuts in two waits for the next call, which starts with it; when it alone
-- fills the batch, all its tasks go now (their put was as big), so none overtakes another.
function upkeep.promote(C, now, batch)
  local due = redis.call('ZRANGEBYSCORE', C.K.delayed, '-inf', now, 'WITHSCORES', 'LIMIT', 0, batch)
  if #due == batch * 2 then
    -- A full batch: does its last run-at have tasks past it? (One ZCOUNT, under a backlog only.)
    local last, cut = due[#due], #due
    while cut > 0 and due[cut] == last do cut = cut - 2 end
    if redis.call('ZCOUNT', C.K.delayed, last, last) > (#due - cut) / 2 then
      if cut == 0 then due = redis.call('ZRANGEBYSCORE', C.K.delayed, last, last, 'WITHSCORES') else due = { unpack(due, 1, cut) } end
    end
  end
  local ids, entries, tied = {}, {}, false
  for i = 1, #due, 2 do
    table.insert(ids, due[i])
    tied = tied or due[i + 1] == due[i - 1]
  end
  local k = 0
  for part in many.slices(ids) do
    local raws = redis.call('HMGET', C.K.tasks, unpack(part))
    for j, id in ipairs(part) do
      k = k + 1
      -- (No record: nothing to run; cannot happen while the invariants hold.)
      if raws[j] then table.insert(entries, { id = id, at = tonumber(due[k * 2]), meta = record.peek(raws[j]) }) end
    end
  end
  if tied then table.sort(entries, before) end
  many.many('ZREM', C.K.delayed, ids)
  for _, e in ipairs(entries) do ready.push(C, e.id, e.meta) end
end

-- Runs the housekeeping. Returns the earliest run-at and lease deadline left (ms, or nil) and how
-- many parked tasks moved back into `grouped`.
function upkeep.upkeep(C, now, cap, batch, life)
  local d, a, refilled = upkeep.earliest(C.K.delayed), upkeep.earliest(C.K.active), 0
  if d and d <= now then
    upkeep.promote(C, now, batch)
    d = upkeep.earliest(C.K.delayed)
  end
  -- A lapsed lease was a delivery (counted when leased): out of attempts means dead. Retried at
  -- once, and counted as a failed attempt too: the attempt ended without an ack.
  if a and a <= now then
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', C.K.active, '-inf', now, 'LIMIT', 0, batch)) do
      local meta = records.load(C, id)
      if meta.cx then
        -- Cancelled while it ran: it ends so, never runs again.
        refilled = refilled + cancels.endCancel(C, id, meta, now, cap)
      else
        redis.call('HINCRBY', C.K.counts, 'lease-lost', 1)
        -- Its lease ran out (a dead worker's, lapsed by a heartbeat, too): lapsed, then failed (events: 'all').
        events.emitLife(C, life, cap, meta, 'type', 'lapsed', 'id', id, 'attempt', meta.n, 'worker', meta.w or '')
        local _, moved = attempt.endAttempt(C, id, meta, 'lease expired', meta.m, nil, now, cap, nil, life)
        refilled = refilled + moved
      end
    end
    a = upkeep.earliest(C.K.active)
  end
  local dead = redis.call('ZCARD', C.K.dead)
  if dead > 0 then
    -- The queue's own caps (keep(), the `keep` hash), else the scheduler's.
    local own = redis.call('HMGET', C.K.keep, 'deadCount', 'deadAge')
    local maxCount, maxAge = tonumber(own[1]) or tonumber(C.A.deadMaxCount), tonumber(own[2]) or tonumber(C.A.deadMaxAge)
    local old = redis.call('ZRANGEBYSCORE', C.K.dead, '-inf', now - maxAge, 'LIMIT', 0, batch)
    local excess = math.min(dead - maxCount, batch)
    if excess > 0 then old = redis.call('ZRANGE', C.K.dead, 0, excess - 1) end
    -- Their records say nothing of what else they have: all of it goes (meta nil).
    for _, id in ipairs(old) do redis.call('ZREM', C.K.dead, id); records.forget(C, id) end
    -- A dead head that held its ordered group is gone: the group goes on (include: heads).
    refilled = refilled + heads.dropHeads(C, old)
  end
  return d, a, refilled
end
