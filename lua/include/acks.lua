--[[ acks: claim's first step, the acks a worker sends with its next claim (one round trip per task
  for a busy worker). Fenced (include: lease): an ack counts only while the lease it names is live.
  A finished task leaves no records behind in `tasks`, and its de-dup identity is free again; the
  queue's history keeps it (include: history) unless its caps are 0. Acks of a call are checked
  with two bulk reads (ZMSCORE, HMGET) and written with a few variadic calls. ]]
-- include: deps, records, record, groups, history, minutes, events, many, outcomes, lease, each
local acks = {}

-- The run number of the next finish the history keeps (include: runs), as 12 hex digits: the
-- queue's counter `order` is read once a call, at the first, taking one number per ack of the call
-- (C.lastRun: the last taken).
function acks.nextRun(C, count)
  if not C.lastRun then C.lastRun = redis.call('HINCRBY', C.K.counts, 'order', count) - count end
  C.lastRun = C.lastRun + 1
  return string.format('%012x', C.lastRun)
end

-- Acks C.A.acks tasks (3 ARGV slots each after the named ones: id, lease token, result), appending 1
-- (acked) or 0 (lease lost) per ack to `out`. Returns how many tasks finished (each gives its
-- concurrency slot back) and how many parked tasks of their groups moved back.
function acks.ackAll(C, out, now, cap)
  local n = tonumber(C.A.acks)
  if n == 0 then return 0, 0 end
  local ids, tokens = {}, {}
  for j = 1, n do ids[j], tokens[j] = each.item(C, j) end
  local deadlines = redis.call('ZMSCORE', C.K.active, unpack(ids))
  local metas = redis.call('HMGET', C.K.tasks, unpack(ids))
  local gone, held, seen, remembered, refilled = {}, {}, {}, {}, 0
  local remember = tonumber(C.A.remember)
  local keepCount, keepAge = history.doneCaps(C)
  -- Numbers go to Redis as text made once (or per task with %d): a Lua number is printed with %.17g.
  local nowText = string.format('%d', now)
  local trims = {}
  redis.call('ZREMRANGEBYSCORE', C.K.acked, '-inf', now - remember)
  for j = 1, n do
    local ok = 0
    local meta = metas[j] and record.peek(metas[j])
    if lease.live(deadlines[j], meta, tokens[j], now) then
      ok = 1
      if not seen[ids[j]] then
        seen[ids[j]] = true
        refilled = refilled + groups.finished(C, meta)
        local result = select(3, each.item(C, j))
        -- A kept result of up to 1 KiB rides in the event: a caller waiting for it needs no read.
        if meta.kr and #result <= 1024 then
          events.emitFor(C, cap, meta, 'type', 'completed', 'id', ids[j], 'attempt', string.format('%d', meta.n), 'result', result)
        else
          events.emitFor(C, cap, meta, 'type', 'completed', 'id', ids[j], 'attempt', string.format('%d', meta.n))
        end
        outcomes.keepOutcome(C, ids[j], meta, now, 'done', result)
        -- Its own caps (put's `keep`) or the queue's (include: history).
        local count, age, own = keepCount, keepAge, false
        if meta.kp then count, age, own = history.capsFor(C, meta, keepCount, keepAge) end
        if count > 0 and history.keepDone(C, ids[j], metas[j], now, result, meta, acks.nextRun(C, n)) == 1 then history.noteKept(trims, count, age, own) end
        events.countNamed(C.K.counts, 'completed', meta)
        deps.fire(C, ids[j], meta, 'done', now)
        records.forgetExtras(C, ids[j], meta)
        table.insert(gone, ids[j]); table.insert(held, meta.w .. '|' .. ids[j])
        table.insert(remembered, nowText); table.insert(remembered, tokens[j])
      end
    end
    -- Tokens are random per lease, so a remembered one can only be this very lease's ack, retried
    -- because its first reply was lost.
    if ok == 0 and redis.call('ZSCORE', C.K.acked, tokens[j]) then ok = 1 end
    table.insert(out, ok)
  end
  if #gone > 0 then
    many.many('ZREM', C.K.active, gone)
    many.many('ZREM', C.K.held, held)
    many.many('HDEL', C.K.tasks, gone)
    many.many('ZADD', C.K.acked, remembered)
    redis.call('HINCRBY', C.K.counts, 'completed', #gone)
    minutes.countMinute(C, 'c', #gone, now)
    -- The memory of acks goes too once a queue falls quiet.
    redis.call('PEXPIRE', C.K.acked, remember)
  end
  history.trimAll(C, now, trims)
  return #gone, refilled
end
