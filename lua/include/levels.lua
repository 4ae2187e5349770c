--[[ levels: included by the scripts that queue, dequeue or remove ready tasks (not a script itself;
  Scripts inlines it where a script says `-- include: levels`).
  Ready tasks wait in one list per priority level. Level 0, normal tasks, is the `ready` list,
  KEYS[READY]; level L (1-9) is the list KEYS[LEVELS + L]. The `levels` ZSET, KEYS[LEVELS], holds
  every level whose list may be non-empty (score = level), so a claim finds the highest non-empty
  level with one read instead of looking at nine lists; claim drops a level it finds empty.
  The including script sets READY and LEVELS, the KEYS indices of `ready` and `levels`, first. ]]

-- The ready list of a task's level.
local function readyOf(meta)
  local level = meta.p or 0
  if level > 0 then return KEYS[LEVELS + level] end
  return KEYS[READY]
end

-- Queues a task on its level's list: at the tail (FIFO within the level), or at the head for a
-- task handed back unfinished.
local function push(id, meta, head)
  redis.call(head and 'LPUSH' or 'RPUSH', readyOf(meta), id)
  if (meta.p or 0) > 0 then redis.call('ZADD', KEYS[LEVELS], meta.p, meta.p) end
end
