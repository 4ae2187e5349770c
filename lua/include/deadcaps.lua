--[[ deadcaps: a task's own caps on the dead set (put's `keep.dead`: its record's `kp` xc, xa;
  included by attempt, not a script itself), applied when THIS task goes dead, as BullMQ's
  removeOnFail: a count of 0 keeps it not at all (its records go, as a purge's would, once its
  outcome and its dependents are seen to); else the dead set is trimmed by its caps, the oldest
  past its count and those past its age, at most DEAD_TRIM entries, so the call stays bounded (the
  claims' trim by the queue's caps does the rest). A dead head of an ordered group (holdOnDead)
  that goes either way lets its group go on (include: heads), as every deletion does. Needs the
  include records before it (forget). ]]
-- include: heads, records
local deadcaps = {}

-- The most dead tasks one death's own caps remove.
local DEAD_TRIM = 3

-- Task id (meta: its record) has just gone dead. Returns true when it is not kept (its records
-- are gone, and the caller must not write them back), and how many parked tasks moved back.
function deadcaps.keepDead(C, id, meta, now)
  local own = meta.kp
  local count, age = own and tonumber(own.xc), own and tonumber(own.xa)
  if count == 0 then
    redis.call('ZREM', C.K.dead, id)
    records.forget(C, id, meta)
    return true, heads.dropHead(C, id, meta)
  end
  if not count and not age then return false, 0 end
  local old = {}
  if count then
    local excess = redis.call('ZCARD', C.K.dead) - count
    if excess > 0 then old = redis.call('ZRANGE', C.K.dead, 0, math.min(excess, DEAD_TRIM) - 1) end
  end
  -- Both lists run oldest first: those past the age that the count did not take follow its.
  if age and #old < DEAD_TRIM then
    for _, gone in ipairs(redis.call('ZRANGEBYSCORE', C.K.dead, '-inf', '(' .. (now - age), 'LIMIT', #old, DEAD_TRIM - #old)) do
      table.insert(old, gone)
    end
  end
  -- Their records say nothing of what else they have: all of it goes (meta nil), as claim's trim.
  local trimmed = {}
  for _, gone in ipairs(old) do
    if gone ~= id then redis.call('ZREM', C.K.dead, gone); records.forget(C, gone); table.insert(trimmed, gone) end
  end
  return false, heads.dropHeads(C, trimmed)
end
