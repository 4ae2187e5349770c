--[[ gate: included by claim (not a script itself): what its lease step (include: take) may
  take. Before it, the queue as a whole (gate): a paused queue leases nothing, and its own limits
  (include: limits) cap the count. During it, a grouped task whose group is at its concurrency
  limit (full) is set aside (park) until the group has a place (include: groups). ]]
-- include: limits, record, groups, controls
local gate = {}

-- Whether group g is at its limit of active tasks (leases of this call already counted).
function gate.full(C, g)
  local limit = controls.limitOf(C, g)
  return limit and (tonumber(redis.call('HGET', C.K.gactive, g)) or 0) >= limit
end

-- Sets a task of a group at its limit aside until the group has a place (see groups: refill). Its
-- place in the group's order is fixed the first time, so a task parked again keeps it.
function gate.park(C, id, meta, tag)
  if not meta.q then
    meta.q = ((meta.p or 0) > 0 and '0' or '1') .. string.format('%016d', tag)
    redis.call('HSET', C.K.tasks, id, record.encode(meta))
  end
  redis.call('ZADD', C.K.parked, 0, groups.parkedAs(id, meta))
end

-- Claim's step 4: how many of `count` tasks it may lease. A paused queue leases none; housekeeping
-- still ran, so leases lapse and due tasks become ready as usual, and the worker looks again at
-- the next run-at or lease end (out[2]), or when resume's wake token comes: it never spins on a
-- ready backlog it may not take. `extras` says whether pause or limits may be set at all (claim's
-- one EXISTS). Returns how many, whether that is fewer than asked (capped), whether the queue has
-- limits (its leases are then counted), the earliest time a group held by its rate reopens (or
-- nil), and whether claim stops here (paused, or no room: out[2] says when to look again). A call
-- that asks for none (acks only) goes on when nothing stops it, to wake an idle worker for a backlog.
function gate.gate(C, count, now, extras, d, a, out)
  local stops = extras and redis.call('EXISTS', C.K.paused, C.K.limits) or 0
  if stops > 0 and redis.call('EXISTS', C.K.paused) == 1 then
    if d or a then out[2] = math.min(d or a, a or d) end
    return 0, false, false, nil, true
  end
  if stops == 0 then return count, false, false, nil, false end
  -- The queue's own limits: lapsed leases were re-queued above, so `active` counts only live ones.
  -- A queue with no room leases nothing; its worker looks again when the rate allows the next
  -- claim, a lease may lapse, or a finished task's wake token comes.
  local capped, later
  count, capped, later = limits.allowed(C, count, now)
  limits.reopen(C, now)
  local reopens = tonumber(redis.call('ZRANGE', C.K.gheld, 0, 0, 'WITHSCORES')[2])
  if count == 0 then
    if later then out[2] = later elseif d or a then out[2] = math.min(d or a, a or d) end
  end
  return count, capped, true, reopens, count == 0
end
