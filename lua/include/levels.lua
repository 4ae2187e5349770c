--[[ levels: included by the scripts that queue, dequeue or remove ready tasks (not a script itself;
  Scripts inlines it where a script says `-- include: levels`).
  Ready tasks wait in one list per priority level, each FIFO: a task joins its level's tail, and
  only a task handed back unfinished goes to the head. Level 0, normal tasks, is the `ready` list,
  C.K.ready; level L (1-9) is the list C.K['ready' .. L]. The `levels` ZSET, C.K.levels, holds
  every level whose list may be non-empty (score = level), so a claim finds the highest non-empty
  level with one read instead of looking at nine lists; claim drops a level it finds empty.
  Only tasks without a group: tasks of fair groups wait in `grouped` (include: groups), and
  include: ready chooses between the two. ]]
local levels = {}

-- The ready list of a task's level.
function levels.readyOf(C, meta)
  local level = meta.p or 0
  if level > 0 then return C.K['ready' .. level] end
  return C.K.ready
end

-- Queues a task on its level's list: at the tail (FIFO within the level), or at the head for a
-- task handed back unfinished.
function levels.pushLevel(C, id, meta, head)
  redis.call(head and 'LPUSH' or 'RPUSH', levels.readyOf(C, meta), id)
  if (meta.p or 0) > 0 then redis.call('ZADD', C.K.levels, meta.p, meta.p) end
end

-- Taking a task out of a ready list (include: ready's unqueue: cancel, reschedule, priority, a
-- replacing put) leaves its entry where it is (finding it would be an LREM, O(N) in the list) and
-- counts it as a ghost in `moved`: field '<level>|<id>' -> how many of
-- id's entries in that level's list are ghosts, field '' -> all ghosts of the queue. An entry is
-- only an id, so ghosts are counted, not marked: whoever next takes an entry of id from that list
-- (a claim, a clean) finds the count above 0, takes one off it and drops the entry, whichever of
-- id's entries there it is. While any ghost is left, `levels` holds the member 'm' (score -1), so
-- a claim learns from the read it makes anyway whether to look, and a queue that never left a
-- ghost pays nothing. `moved` is the including script's key, passed in.
function levels.ghost(C, moved, level, id)
  redis.call('HINCRBY', moved, level .. '|' .. id, 1)
  redis.call('HINCRBY', moved, '', 1)
  redis.call('ZADD', C.K.levels, -1, 'm')
end

-- Whether an entry of id just taken from level's list is a ghost; if so it is counted off.
function levels.unghost(C, moved, level, id)
  local field = level .. '|' .. id
  local n = tonumber(redis.call('HGET', moved, field))
  if not n then return false end
  if n > 1 then redis.call('HINCRBY', moved, field, -1) else redis.call('HDEL', moved, field) end
  if redis.call('HINCRBY', moved, '', -1) <= 0 then
    redis.call('DEL', moved)
    redis.call('ZREM', C.K.levels, 'm')
  end
  return true
end
