#!lua flags=allow-oom
--[[ claim: on the server's clock, ack the tasks a worker finished, then promote due tasks,
  re-queue lapsed leases, trim the dead, drop expired tasks, and lease up to `count` ready tasks.
  Acking and claiming in one call is one round trip per task for a busy worker; `count` 0 only acks.
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, active, data, meta,
    dead, counts, wake, held, acked, levels, ready1, ready2, ready3, ready4, ready5, ready6,
    ready7, ready8, ready9, grouped, gtags, parked, gactive, glimits, paused, events, results,
    kept, progress, waiting, limits, rates, gheld, blocked, after, dependents, deplist, settle,
    outbox, logs, moved
  ARGV[1] count         most tasks to lease; 0 to only ack
  ARGV[2] lease         lease length (ms)
  ARGV[3] token         random lease-token prefix; the i-th task leased gets token .. ':' .. i
  ARGV[4] worker        id of the claiming worker (host:pid:random)
  ARGV[5] deadMaxCount  dead tasks kept; the oldest beyond this are purged
  ARGV[6] deadMaxAge    ms a dead task is kept
  ARGV[7] remember      ms an ack's token is kept, so a retried ack is answered the same
  ARGV[8] events        most entries kept in the events stream; 0 for no events
  ARGV[9] keep          the worker's keepResult (ms), given to each task it leases that has none; 0 for none
  ARGV[10] acks         number of acks in this call; then 3 slots per ack, starting at ARGV[11]:
  ARGV[+1] id           id of a finished task
  ARGV[+2] ackToken     the lease token claim handed out for it
  ARGV[+3] result       the handler's result as JSON, kept when the task keeps its outcome; '' for none
  Returns: { now, next-due (ms) or '', when the outbox has steps due (ms) or '', then 1 (acked) or
    0 (lease lost) for each ack, then
    id, payload, attempt, run-at, expire-at or '', trace or '', keepResult (ms) or '', timeout
    (ms) or '', name or '', group or '' for each leased task } ]]
-- Entries per leased task in the reply (see Returns; lib/lease.ts reads the same number).
local FIELDS = 10
-- include: levels
-- include: events
-- include: outcomes
-- include: identity
-- include: limits
-- include: deps
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
-- Bounds the housekeeping one call does, so a backlog never stalls Redis; the rest waits a call.
local BATCH = 100
local out = { now, '', '' }
-- Parked tasks moved back into `grouped` by this call (a group got a place back).
local refilled = 0

-- Variadic commands in slices: Lua's unpack() has a stack limit of a few thousand values.
-- Slices hold 1000 values, an even number, so field-value and score-member pairs stay whole.
local function many(cmd, key, list)
  for i = 1, #list, 1000 do redis.call(cmd, key, unpack(list, i, math.min(i + 999, #list))) end
end

---------------------------------------------------------------------------- ack (fencing)
local cap = tonumber(ARGV[8])
local acks = tonumber(ARGV[10])
-- Tasks this call's acks finished: each gives a concurrency slot back.
local freed = 0
if acks > 0 then
  local ids, tokens = {}, {}
  for j = 1, acks do ids[j], tokens[j] = ARGV[8 + 3 * j], ARGV[9 + 3 * j] end
  local deadlines = redis.call('ZMSCORE', K.active, unpack(ids))
  local metas = redis.call('HMGET', K.meta, unpack(ids))
  local gone, held, seen, remembered = {}, {}, {}, {}
  local remember = tonumber(ARGV[7])
  redis.call('ZREMRANGEBYSCORE', K.acked, '-inf', now - remember)
  for j = 1, acks do
    local ok = 0
    -- Refused once the deadline has passed or another lease replaced this one.
    if deadlines[j] and tonumber(deadlines[j]) > now and metas[j] then
      local meta = cjson.decode(metas[j])
      if meta.t == tokens[j] then
        ok = 1
        if not seen[ids[j]] then
          seen[ids[j]] = true
          refilled = refilled + finished(meta)
          local result = ARGV[10 + 3 * j]
          -- A kept result of up to 1 KiB rides in the event: a caller waiting for it needs no read.
          if meta.kr and #result <= 1024 then
            emitFor(cap, meta, 'type', 'completed', 'id', ids[j], 'attempt', meta.n, 'result', result)
          else
            emitFor(cap, meta, 'type', 'completed', 'id', ids[j], 'attempt', meta.n)
          end
          keepOutcome(ids[j], meta, now, 'done', result)
          countNamed(K.counts, 'completed', meta)
          fire(ids[j], meta, 'done', now)
          if meta.pg then redis.call('HDEL', K.progress, ids[j]) end
          if meta.lg then redis.call('HDEL', K.logs, ids[j]) end
          if meta.dl then redis.call('HDEL', K.deplist, ids[j]) end
          table.insert(gone, ids[j]); table.insert(held, meta.w .. '|' .. ids[j])
          table.insert(remembered, now); table.insert(remembered, tokens[j])
        end
      end
    end
    -- Tokens are random per lease, so a remembered one can only be this very lease's ack, retried
    -- because its first reply was lost.
    if ok == 0 and redis.call('ZSCORE', K.acked, tokens[j]) then ok = 1 end
    table.insert(out, ok)
  end
  freed = #gone
  if #gone > 0 then
    -- A finished task leaves no keys behind, and its de-dup identity is free again.
    many('ZREM', K.active, gone)
    many('ZREM', K.held, held)
    many('HDEL', K.data, gone)
    many('HDEL', K.meta, gone)
    many('ZADD', K.acked, remembered)
    redis.call('HINCRBY', K.counts, 'completed', #gone)
    -- The memory of acks goes too once a queue falls quiet.
    redis.call('PEXPIRE', K.acked, remember)
  end
end

local count = tonumber(ARGV[1])
if count == 0 then
  -- What the acks released is ready when the call returns (a batch; claims take the rest).
  if stepped then drain(BATCH, now, cap) end
  -- Only acks: a parked task they moved back, or a concurrency slot they gave back, is for an idle
  -- worker to take.
  local slots = freed > 0 and redis.call('EXISTS', K.limits) == 1
  if (refilled > 0 or slots or stepped) and redis.call('LLEN', K.wake) == 0 then redis.call('RPUSH', K.wake, '1') end
  -- A finished task that tasks of other queues wait on: its client carries the steps at once.
  if outboxed then out[3] = now end
  return out
end

---------------------------------------------------------------------------- housekeeping
local function load(id) return cjson.decode(redis.call('HGET', K.meta, id)) end
-- Deletes a task's records; its progress, logs and dependency list too, unless its metadata says it has none.
local function purge(id, meta)
  redis.call('HDEL', K.data, id); redis.call('HDEL', K.meta, id)
  if not meta or meta.pg then redis.call('HDEL', K.progress, id) end
  if not meta or meta.lg then redis.call('HDEL', K.logs, id) end
  if not meta or meta.dl then redis.call('HDEL', K.deplist, id) end
end
local function earliest(key) return tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) end

-- Each check looks at the earliest member first, so an idle queue costs one call per structure.
local d, a = earliest(K.delayed), earliest(K.active)
if d and d <= now then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', K.delayed, '-inf', now, 'LIMIT', 0, BATCH)) do
    redis.call('ZREM', K.delayed, id)
    push(id, load(id))
  end
  d = earliest(K.delayed)
end

-- A lapsed lease was a delivery (counted when leased): out of attempts means dead.
if a and a <= now then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', K.active, '-inf', now, 'LIMIT', 0, BATCH)) do
    local meta = load(id)
    redis.call('ZREM', K.active, id)
    if meta.w then redis.call('ZREM', K.held, meta.w .. '|' .. id) end
    meta.t, meta.l, meta.w, meta.err = nil, nil, nil, 'lease expired'
    refilled = refilled + finished(meta)
    -- Counted as a failed attempt too: the attempt ended without an ack.
    redis.call('HINCRBY', K.counts, 'lease-lost', 1)
    redis.call('HINCRBY', K.counts, 'failed', 1)
    countNamed(K.counts, 'failed', meta)
    -- (Not one that others wait on: they wait on this task, so it is retried.)
    local into = meta.n < meta.m and not meta.dp and waitingCopy(id, meta)
    if into then
      -- An until-start task whose identity already has a task waiting: that one does the work.
      purge(id, meta)
      redis.call('HINCRBY', K.counts, 'merged', 1)
      emitFor(cap, meta, 'type', 'merged', 'id', id, 'attempt', meta.n, 'error', brief(meta.err), 'into', into)
      keepOutcome(id, meta, now, 'merged', into)
    elseif meta.n >= meta.m then
      redis.call('ZADD', K.dead, now, id)
      redis.call('HINCRBY', K.counts, 'dead', 1)
      countNamed(K.counts, 'dead', meta)
      emitFor(cap, meta, 'type', 'dead', 'id', id, 'attempt', meta.n, 'error', brief(meta.err))
      keepOutcome(id, meta, now, 'dead', meta.err)
      fire(id, meta, 'dead', now)
    else
      push(id, meta)
      repoint(id, meta)
      emitFor(cap, meta, 'type', 'failed', 'id', id, 'attempt', meta.n, 'error', brief(meta.err))
    end
    if not into then redis.call('HSET', K.meta, id, cjson.encode(meta)) end
  end
  a = earliest(K.active)
end

local dead = redis.call('ZCARD', K.dead)
if dead > 0 then
  local old = redis.call('ZRANGEBYSCORE', K.dead, '-inf', now - tonumber(ARGV[6]), 'LIMIT', 0, BATCH)
  local excess = math.min(dead - tonumber(ARGV[5]), BATCH)
  if excess > 0 then old = redis.call('ZRANGE', K.dead, 0, excess - 1) end
  for _, id in ipairs(old) do redis.call('ZREM', K.dead, id); purge(id) end
end

-- One EXISTS for the four keys a plain queue lacks (dependency steps, pause, its own limits): a
-- queue that uses none of them pays one command for all, in every claim.
local extras = redis.call('EXISTS', K.settle, K.outbox, K.paused, K.limits) > 0

-- Dependency work (include: deps): steps for this queue, a batch a call; and whether the outbox
-- holds steps for other queues that are due, for the worker to carry over (lib/deps.ts).
local carry, settling = nil, false
if extras and redis.call('EXISTS', K.settle, K.outbox) > 0 then
  settling = true
  drain(BATCH, now, cap)
  carry = earliest(K.outbox)
  if carry then out[3] = carry end
  d = earliest(K.delayed)
end

---------------------------------------------------------------------------- lease
-- A paused queue leases nothing; housekeeping above still runs, so leases lapse and due tasks
-- become ready as usual. The worker looks again at the next run-at or lease end, or when
-- resume's wake token arrives: it never spins on the ready backlog it may not take.
local controls = extras and redis.call('EXISTS', K.paused, K.limits) or 0
if controls > 0 and redis.call('EXISTS', K.paused) == 1 then
  if d or a then out[2] = math.min(d or a, a or d) end
  return out
end
-- The queue's own limits (include: limits): lapsed leases were re-queued above, so `active`
-- counts only live ones. A queue with no room leases nothing; its worker looks again when the rate
-- allows the next claim, a lease may lapse, or a finished task's wake token comes.
local capped, limited, held = false, false, nil
if controls > 0 then
  local later
  count, capped, later = allowed(count, now)
  limited = true
  reopen(now)
  held = tonumber(redis.call('ZRANGE', K.gheld, 0, 0, 'WITHSCORES')[2])
  if count == 0 then
    if later then out[2] = later elseif d or a then out[2] = math.min(d or a, a or d) end
    return out
  end
end
local until_ = now + tonumber(ARGV[2])
local keep = tonumber(ARGV[9])
local taken, dropped, skipped, parked = {}, 0, 0, 0
-- Whether group g is at its limit of active tasks (leases of this call already counted).
local function full(g)
  local limit = limitOf(g)
  return limit and (tonumber(redis.call('HGET', K.gactive, g)) or 0) >= limit
end
-- Sets a task of a group at its limit aside until the group has a place (see levels: refill). Its
-- place in the group's order is fixed the first time, so a task parked again keeps it.
local function park(id, meta, tag)
  if not meta.q then
    meta.q = ((meta.p or 0) > 0 and '0' or '1') .. string.format('%016d', tag)
    redis.call('HSET', K.meta, id, cjson.encode(meta))
  end
  redis.call('ZADD', K.parked, 0, parkedAs(id, meta))
end
local leased, scored, holders, leasedGroups = {}, {}, {}, {}
-- Whether group g has no rate room now; then `reopens` says when it will.
local reopens
local function rateHeld(g)
  local ok, at = groupRoom(g, now)
  reopens = at
  return not ok
end
-- Where to take from: the priority levels of ungrouped tasks, highest first; then the grouped
-- tasks, lowest tag (earliest round) first; then ungrouped normal tasks.
local sources = {}
-- 'm' in `levels` says some ready list holds ghosts (include: levels).
local ghosts = false
for _, level in ipairs(redis.call('ZREVRANGE', K.levels, 0, -1)) do
  if level == 'm' then
    ghosts = true
  elseif level == 'g' then
    table.insert(sources, { key = K.grouped, level = level, grouped = true })
  else
    table.insert(sources, { key = K['ready' .. tonumber(level)], level = level })
  end
end
table.insert(sources, { key = K.ready })
local source, round, tags = 1, nil, {}
while #taken < count and dropped + skipped + parked < BATCH * 10 and source <= #sources do
  local want = count - #taken
  local ids
  local from = source
  if sources[source].grouped then
    local popped = redis.call('ZPOPMIN', K.grouped, want)
    ids = {}
    for j = 1, #popped, 2 do
      table.insert(ids, popped[j])
      round = tonumber(popped[j + 1])
      tags[popped[j]] = round
    end
    if #ids == 0 then ids = nil end
  else
    ids = redis.call('LPOP', sources[source].key, want)
  end
  if not ids or #ids < want then
    -- This list is empty now: a priority level leaves the index, and the next list is next.
    if sources[source].level then redis.call('ZREM', K.levels, sources[source].level) end
    source = source + 1
  end
  ids = ids or {}
  local metas = #ids > 0 and redis.call('HMGET', K.meta, unpack(ids)) or {}
  for j, id in ipairs(ids) do
    local meta = metas[j] and cjson.decode(metas[j])
    if meta and tags[id] then
      -- The lane's latest tag is reached: forget it, so a group's hash field goes with its tasks.
      local lane = laneOf(meta)
      if (tonumber(redis.call('HGET', K.gtags, lane)) or 0) <= tags[id] then redis.call('HDEL', K.gtags, lane) end
    end
    if ghosts and not sources[from].grouped and unghost(K.moved, sources[from].level or '0', id) then
      -- An entry a cancel, reschedule or priority change left behind (include: levels): its task
      -- is gone, delayed, or waits (or ran) under its new level.
      skipped = skipped + 1
    elseif not meta then
      -- No record: nothing to run (cannot happen while the invariants hold).
      skipped = skipped + 1
    elseif meta.e and meta.e <= now then
      -- Expired while unclaimed: dropped, and counted so it never vanishes silently.
      purge(id, meta); dropped = dropped + 1
      unpoint(id, meta)
      -- The attempt field only when it had deliveries (a retry that expired): null otherwise, as ever.
      if meta.n > 0 then emitFor(cap, meta, 'type', 'expired', 'id', id, 'attempt', meta.n) else emitFor(cap, meta, 'type', 'expired', 'id', id) end
      keepOutcome(id, meta, now, 'expired')
      fire(id, meta, 'expired', now)
      if tags[id] then refilled = refilled + refill(meta.g) end
    elseif tags[id] and full(meta.g) then
      park(id, meta, tags[id]); parked = parked + 1
    elseif tags[id] and limited and rateHeld(meta.g) then
      -- Its group has used its rate: parked until the window reopens (include: limits).
      park(id, meta, tags[id]); parked = parked + 1
      redis.call('ZADD', K.gheld, reopens, meta.g)
      held = math.min(held or reopens, reopens)
    else
      local i = #taken + 1
      if tags[id] then
        redis.call('HINCRBY', K.gactive, meta.g, 1)
        meta.q = nil
      end
      meta.n, meta.t, meta.l, meta.w = meta.n + 1, ARGV[3] .. ':' .. i, until_, ARGV[4]
      if keep > 0 and not meta.kr then meta.kr = keep end
      -- Leased: an until-start task's identity is free again, so it is no longer the one waiting.
      if meta.b then unpoint(id, meta) end
      taken[i] = id
      leasedGroups[i] = tags[id] and meta.g
      table.insert(leased, id); table.insert(leased, cjson.encode(meta))
      table.insert(scored, until_); table.insert(scored, id)
      table.insert(holders, 0); table.insert(holders, ARGV[4] .. '|' .. id)
      table.insert(out, id); table.insert(out, false); table.insert(out, meta.n)
      table.insert(out, meta.r); table.insert(out, meta.e or ''); table.insert(out, meta.tp or '')
      table.insert(out, meta.kr or ''); table.insert(out, meta.to or ''); table.insert(out, meta.nm or '')
      table.insert(out, meta.g or '')
    end
  end
end
-- The round grouped claims have reached: a group that was idle joins it, not an earlier one.
if round then redis.call('HSET', K.gtags, '', round) end
if dropped > 0 then redis.call('HINCRBY', K.counts, 'expired', dropped) end
if limited and #taken > 0 then
  local tokens, groups = {}, {}
  for i = 1, #taken do tokens[i] = ARGV[3] .. ':' .. i; groups[i] = leasedGroups[i] or false end
  counted(tokens, groups, now)
end
if #taken > 0 then
  many('HSET', K.meta, leased)
  many('ZADD', K.active, scored)
  many('ZADD', K.held, holders)
  -- Payloads go back as stored: the client parses them once.
  local payloads = redis.call('HMGET', K.data, unpack(taken))
  local base = #out - FIELDS * #taken
  for i = 1, #taken do out[base + FIELDS * (i - 1) + 2] = payloads[i] end
  a = math.min(a or until_, until_)
end

-- Tasks that waited on tasks this call dropped as expired learn now.
if stepped then drain(BATCH, now, cap) end

-- When the worker should look again: now if ready tasks remain, else the next run-at or lease end.
local backlog = source < #sources or (source == #sources and redis.call('LLEN', K.ready) > 0)
  or (refilled > 0 and redis.call('ZCARD', K.grouped) > 0)
  -- Steps left in `settle` (a batch a call): the worker claims again at once to take the next.
  or ((settling or stepped) and redis.call('LLEN', K.settle) > 0)
-- (At its concurrency limit, the queue has no room now: the next lease end, or a wake token, will.)
-- (A group held by its rate limit reopens at `held`.)
local due = d
if a and (not due or a < due) then due = a end
if held and (not due or held < due) then due = held end
-- A step leased to a carrier that died is due again then. (One due now is this worker's to
-- carry, which it does on this reply: no reason to claim again at once.)
if carry and carry > now and (not due or carry < due) then due = carry end
if backlog and not capped then out[2] = now elseif due then out[2] = due end
-- This worker is now full and ready tasks remain: wake an idle worker to take them. (Run-ats and
-- lease ends need no hand-over: every idle worker's timer already covers them, or a put woke it.)
if backlog and #taken == count and not capped and redis.call('LLEN', K.wake) == 0 then
  redis.call('RPUSH', K.wake, '1')
end
return out
