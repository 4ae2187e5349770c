--[[ take: claim's lease step. Takes up to `count` ready tasks, highest priority level first, then
  the fair groups (lowest tag first: include: groups), then ungrouped normal tasks (include: sources);
  leases each to the calling worker until now + C.A.lease with token C.A.token .. ':' .. i, and appends
  its reply entries (claim's Returns) to `out`. On the way it drops ghosts (include: levels) and
  expired tasks, and parks tasks of a group at its concurrency or rate limit (include: gate, limits),
  paused (include: groups) or held by its ordered head (include: controls). ]]
-- include: limits, record, levels, groups, gate, heads, expiry, sources, history, events, many
-- include: controls, identity
local take = {}

-- Parks a grouped task (include: gate); an ordered group's held head parks first in its group ('!').
function take.parkIn(C, id, meta, tag)
  if not meta.q and controls.headOf(C, meta.g) == id then meta.q = '!'; redis.call('HSET', C.K.tasks, id, record.encode(meta)) end
  gate.park(C, id, meta, tag)
end
-- Whether group g has no rate room now (groupRoom counts a lease when it has); C.reopens says when.
local function rateHeld(C, g, now) local ok, at = limits.groupRoom(C, g, now); C.reopens = at; return not ok end
-- Leases up to `count` tasks. `limited`: the queue has limits of its own (rates are counted); `held`:
-- when the first group held by its rate reopens (or nil). Returns how many were leased, whether
-- ready tasks remain, `held`, how many parked tasks moved back, the leases' end, and whether it
-- stopped early: past `batch` * 10 entries that lease nothing (ghosts, expired or parked tasks),
-- each gone from the lists, so the next call goes on behind them (lib/life/lease.ts).
function take.take(C, out, count, now, cap, batch, limited, held, life)
  local until_, keep, token, worker = now + tonumber(C.A.lease), tonumber(C.A.keep), C.A.token, C.A.worker
  -- The score as text made once: a Lua number goes to Redis printed with %.17g, each time.
  local untilText, historyOn = string.format('%d', until_), nil -- whether the history is on, read at need
  local taken, dropped, skipped, parked, refilled, back, regrouped = {}, 0, 0, 0, 0, 0, {}
  local leased, scored, holders, leasedGroups = {}, {}, {}, {}
  local list, ghosts = sources.sourcesOf(C)
  local source, round, tags = 1, nil, {}
  while #taken < count and dropped + skipped + parked < batch * 10 and source <= #list do
    local want = count - #taken
    local from = list[source]
    local ids, popped = sources.pop(C, from, want, tags)
    round = popped or round
    if not ids or #ids < want then
      -- This list is empty now: a priority level leaves the index, and the next list is next.
      if from.level then redis.call('ZREM', C.K.levels, from.level) end
      source = source + 1
    end
    ids = ids or {}
    local metas = #ids > 0 and redis.call('HMGET', C.K.tasks, unpack(ids)) or {}
    for j, id in ipairs(ids) do
      local meta = metas[j] and record.decode(metas[j])
      if meta and tags[id] then
        -- The lane's latest tag is reached: forget it, so a group's hash field goes with its tasks.
        local lane = groups.laneOf(meta)
        if (tonumber(redis.call('HGET', C.K.gtags, lane)) or 0) <= tags[id] then redis.call('HDEL', C.K.gtags, lane) end
      end
      if ghosts and not from.grouped and levels.unghost(C, C.K.moved, from.level or '0', id) then
        -- Left behind by a cancel, reschedule, priority change or replacing put (include: levels).
        skipped = skipped + 1
      elseif not meta then
        skipped = skipped + 1 -- no record: nothing to run (cannot happen while the invariants hold)
      elseif meta.e and meta.e <= now then -- expired while unclaimed: dropped (include: expiry), counted
        local moved = expiry.expire(C, id, meta, tags[id] ~= nil, now, cap)
        dropped, back = dropped + 1, back + moved; if moved > 0 then regrouped[meta.g] = true end
      elseif tags[id] and (controls.pausedGroup(C, meta.g) or gate.full(C, meta.g) or heads.heldBack(C, id, meta.g) or regrouped[meta.g]) then
        -- Paused, full, held by its ordered head, or behind a parked task an expiry let back: set aside.
        take.parkIn(C, id, meta, tags[id]); parked = parked + 1
      elseif tags[id] and limited and rateHeld(C, meta.g, now) then
        -- Its group has used its rate: parked until the window reopens (include: limits).
        take.parkIn(C, id, meta, tags[id]); parked = parked + 1
        redis.call('ZADD', C.K.gheld, C.reopens, meta.g)
        held = math.min(held or C.reopens, C.reopens)
      else
        local i = #taken + 1
        if tags[id] then
          redis.call('HINCRBY', C.K.gactive, meta.g, 1)
          -- An ordered group's held head (include: controls) holds its place as an active task now.
          meta.q = nil; controls.unhead(C, id, meta.g)
        end
        meta.n, meta.t, meta.l, meta.w = meta.n + 1, string.format('%s:%d', token, i), until_, worker
        if not meta.s and not meta.kp and historyOn == nil then historyOn = history.doneCaps(C) > 0 end
        if not meta.s and (meta.kp or historyOn) then meta.s = now end -- first started: history on, or own keep
        if keep > 0 and not meta.kr then meta.kr = keep end
        -- Leased: an until-start task's identity is free again, so it is no longer the one waiting.
        if meta.b then identity.unpoint(C, id, meta) end
        taken[i] = id
        if life then events.emitFor(C, cap, meta, 'type', 'active', 'id', id, 'attempt', meta.n, 'worker', worker) end -- events: 'all'
        leasedGroups[i] = tags[id] and meta.g
        table.insert(leased, id); table.insert(leased, record.encode(meta))
        table.insert(scored, untilText); table.insert(scored, id)
        table.insert(holders, '0'); table.insert(holders, worker .. '|' .. id)
        -- The payload goes back as stored: the client parses it once.
        table.insert(out, id); table.insert(out, meta._); table.insert(out, meta.n)
        table.insert(out, meta.r); table.insert(out, meta.e or ''); table.insert(out, meta.tp or '')
        table.insert(out, meta.kr or ''); table.insert(out, meta.to or ''); table.insert(out, meta.nm or '')
        table.insert(out, meta.g or '')
      end
    end
    -- Expiries let parked tasks (`back`, of groups `regrouped`) ahead in `grouped`: it goes again.
    if back > 0 and list[source] ~= from and from.grouped then source = source - 1 end
    if back > 0 then refilled, back, regrouped = refilled + back, 0, {} end
  end
  -- The round grouped claims reached (an idle group joins it); only onward: unparked tasks sit below.
  if round and round > (tonumber(redis.call('HGET', C.K.gtags, '')) or 0) then redis.call('HSET', C.K.gtags, '', round) end
  if dropped > 0 then redis.call('HINCRBY', C.K.counts, 'expired', dropped) end
  if limited and #taken > 0 then
    local tokens, ofGroup = {}, {}
    for i = 1, #taken do tokens[i] = token .. ':' .. i; ofGroup[i] = leasedGroups[i] or false end
    limits.counted(C, tokens, ofGroup, now)
  end
  if #taken > 0 then
    many.many('HSET', C.K.tasks, leased)
    many.many('ZADD', C.K.active, scored)
    many.many('ZADD', C.K.held, holders)
  end
  local more = source < #list or (source == #list and redis.call('LLEN', C.K.ready) > 0)
  -- Still short of `count` with sources left: the loop ended at its bound of work.
  local stopped = #taken < count and source <= #list
  return #taken, more, held, refilled, #taken > 0 and until_ or nil, stopped
end
