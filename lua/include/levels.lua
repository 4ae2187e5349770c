--[[ levels: included by the scripts that queue, dequeue or remove ready tasks (not a script itself;
  Scripts inlines it where a script says `-- include: levels`).
  Ready tasks wait in one list per priority level, each FIFO: a task joins its level's tail, and
  only a task handed back unfinished goes to the head. Level 0, normal tasks, is the `ready` list,
  K.ready; level L (1-9) is the list K['ready' .. L]. The `levels` ZSET, K.levels, holds
  every level whose list may be non-empty (score = level), so a claim finds the highest non-empty
  level with one read instead of looking at nine lists; claim drops a level it finds empty.
  Tasks of fair groups wait in `grouped` instead (include: groups). ]]
-- include: groups

-- The ready list of a task's level (for a task without a group).
local function readyOf(meta)
  local level = meta.p or 0
  if level > 0 then return K['ready' .. level] end
  return K.ready
end

-- Queues a task on its level's list: at the tail (FIFO within the level), or at the head for a
-- task handed back unfinished.
local function push(id, meta, head)
  if meta.g then
    local tag = tagOf(meta, head)
    if not head then redis.call('HSET', K.gtags, laneOf(meta), tag) end
    redis.call('ZADD', K.grouped, tag, id)
    -- Indexed with the levels, between level 1 and the ungrouped normal tasks.
    redis.call('ZADD', K.levels, 0.5, 'g')
    return
  end
  redis.call(head and 'LPUSH' or 'RPUSH', readyOf(meta), id)
  if (meta.p or 0) > 0 then redis.call('ZADD', K.levels, meta.p, meta.p) end
end

-- Taking a task out of a ready list (unqueue, below: cancel, reschedule, priority, a replacing
-- put) leaves its entry where it is (finding it would be an LREM, O(N) in the list) and counts it
-- as a ghost in `moved`: field '<level>|<id>' -> how many of
-- id's entries in that level's list are ghosts, field '' -> all ghosts of the queue. An entry is
-- only an id, so ghosts are counted, not marked: whoever next takes an entry of id from that list
-- (a claim, a clean) finds the count above 0, takes one off it and drops the entry, whichever of
-- id's entries there it is. While any ghost is left, `levels` holds the member 'm' (score -1), so
-- a claim learns from the read it makes anyway whether to look, and a queue that never left a
-- ghost pays nothing. `moved` is the including script's key, passed in.
local function ghost(moved, level, id)
  redis.call('HINCRBY', moved, level .. '|' .. id, 1)
  redis.call('HINCRBY', moved, '', 1)
  redis.call('ZADD', K.levels, -1, 'm')
end

-- Whether an entry of id just taken from level's list is a ghost; if so it is counted off.
local function unghost(moved, level, id)
  local field = level .. '|' .. id
  local n = tonumber(redis.call('HGET', moved, field))
  if not n then return false end
  if n > 1 then redis.call('HINCRBY', moved, field, -1) else redis.call('HDEL', moved, field) end
  if redis.call('HINCRBY', moved, '', -1) <= 0 then
    redis.call('DEL', moved)
    redis.call('ZREM', K.levels, 'm')
  end
  return true
end

-- Takes a ready task out of wherever it waits (cancel, reschedule, priority, a put that replaces
-- it), in O(log N): a grouped or parked task's member goes; an ungrouped one's list entry stays as
-- a ghost (see ghost above), since finding it in the list would be O(N). `moved` is the including
-- script's key. Returns 1, or 0 for a grouped task found in neither place.
local function unqueue(id, meta, moved)
  if not meta.g then
    ghost(moved, meta.p or 0, id)
    return 1
  end
  local member = meta.q and parkedAs(id, meta)
  -- Its place in the group's order was its tag: queued again, it gets a new one.
  meta.q = nil
  if redis.call('ZREM', K.grouped, id) == 1 then
    refill(meta.g)
    return 1
  end
  return member and redis.call('ZREM', K.parked, member) or 0
end
