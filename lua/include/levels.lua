--[[ levels: included by the scripts that queue, dequeue or remove ready tasks (not a script itself;
  Scripts inlines it where a script says `-- include: levels`).
  Ready tasks wait in one list per priority level. Level 0, normal tasks, is the `ready` list,
  KEYS[READY]; level L (1-9) is the list KEYS[LEVELS + L]. The `levels` ZSET, KEYS[LEVELS], holds
  every level whose list may be non-empty (score = level), so a claim finds the highest non-empty
  level with one read instead of looking at nine lists; claim drops a level it finds empty.
  Tasks put with a `group` (fair scheduling across tenants) wait instead in the `grouped` ZSET,
  KEYS[LEVELS + 10], by start-time fair queueing: a task of group g is tagged max(V, last[g]) + 1,
  where V (`gtags` field '') is the tag of the last grouped task claimed and last[g] (`gtags`
  field g, KEYS[LEVELS + 11]) the group's latest tag; claims take the lowest tag. So every group
  with tasks waiting gets one task per round whatever its backlog, a group that was idle joins the
  current round, and within a group tasks keep their order. A group's priority tasks (any level
  above 0) keep a lane of their own (field g|p), so they go ahead of the group's backlog. While
  `grouped` may hold tasks, `levels` holds the member 'g' with score 0.5, so a claim finds out
  from the same read, and one that finds `grouped` empty removes it.
  The including script sets READY and LEVELS, the KEYS indices of `ready` and `levels`, first. ]]
local GROUPED, GTAGS = LEVELS + 10, LEVELS + 11

-- The `gtags` field that holds a grouped task's lane's latest tag.
local function laneOf(meta)
  if (meta.p or 0) > 0 then return meta.g .. '|p' end
  return meta.g
end

-- The ready list of a task's level (for a task without a group).
local function readyOf(meta)
  local level = meta.p or 0
  if level > 0 then return KEYS[LEVELS + level] end
  return KEYS[READY]
end

-- The round and lane tags read or given in this script call, so that a script queueing many
-- grouped tasks reads each once. (Claim's lease loop, which moves the round on, queues nothing.)
local tagged = { round = nil, lanes = {} }

-- The start tag of a grouped task: the current round for a task handed back, else one past the
-- later of the round and its lane's latest tag, which it becomes (the caller writes it to gtags).
local function tagOf(meta, head)
  if not tagged.round then tagged.round = tonumber(redis.call('HGET', KEYS[GTAGS], '')) or 0 end
  if head then return tagged.round end
  local lane = laneOf(meta)
  if tagged.lanes[lane] == nil then tagged.lanes[lane] = tonumber(redis.call('HGET', KEYS[GTAGS], lane)) or 0 end
  tagged.lanes[lane] = math.max(tagged.round, tagged.lanes[lane]) + 1
  return tagged.lanes[lane]
end

-- Queues a task on its level's list: at the tail (FIFO within the level), or at the head for a
-- task handed back unfinished.
local function push(id, meta, head)
  if meta.g then
    local tag = tagOf(meta, head)
    if not head then redis.call('HSET', KEYS[GTAGS], laneOf(meta), tag) end
    redis.call('ZADD', KEYS[GROUPED], tag, id)
    -- Indexed with the levels, between level 1 and the ungrouped normal tasks.
    redis.call('ZADD', KEYS[LEVELS], 0.5, 'g')
    return
  end
  redis.call(head and 'LPUSH' or 'RPUSH', readyOf(meta), id)
  if (meta.p or 0) > 0 then redis.call('ZADD', KEYS[LEVELS], meta.p, meta.p) end
end

-- Takes a ready task out of wherever it waits (cancel, reschedule). O(N) in a ready list: LREM
-- has to find the entry; O(log N) for a grouped task.
local function unqueue(id, meta)
  if meta.g then return redis.call('ZREM', KEYS[GROUPED], id) end
  return redis.call('LREM', readyOf(meta), 1, id)
end
