#!lua
--[[ priority: move a pending (ready, delayed or waiting) task to another priority level. A ready
  task leaves its place and goes to the tail of the new level (FIFO within the level), in O(log N):
  its old entry stays behind as a ghost that claims skip (include: levels); a delayed or
  waiting task keeps its place and takes the new level when it becomes ready. A task of a fair
  group keeps to its group's order: its group has two lanes, normal (level 0) and priority (every
  level above 0), so it moves, to the tail of the other lane, only when the level crosses 0.
  KEYS[1]  <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[2]  <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[3]  <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[4]  <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[5]  <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[6]  <prefix>:{<queue>}:levels   ZSET  priority levels whose ready lists may hold tasks, score = level
  KEYS[7]  <prefix>:{<queue>}:ready1   LIST  ready task ids of priority level 1; head = next
  KEYS[8]  <prefix>:{<queue>}:ready2   LIST  ready task ids of priority level 2; head = next
  KEYS[9]  <prefix>:{<queue>}:ready3   LIST  ready task ids of priority level 3; head = next
  KEYS[10] <prefix>:{<queue>}:ready4   LIST  ready task ids of priority level 4; head = next
  KEYS[11] <prefix>:{<queue>}:ready5   LIST  ready task ids of priority level 5; head = next
  KEYS[12] <prefix>:{<queue>}:ready6   LIST  ready task ids of priority level 6; head = next
  KEYS[13] <prefix>:{<queue>}:ready7   LIST  ready task ids of priority level 7; head = next
  KEYS[14] <prefix>:{<queue>}:ready8   LIST  ready task ids of priority level 8; head = next
  KEYS[15] <prefix>:{<queue>}:ready9   LIST  ready task ids of priority level 9; head = next
  KEYS[16] <prefix>:{<queue>}:grouped  ZSET  ready tasks of fair groups, score = virtual start tag (round)
  KEYS[17] <prefix>:{<queue>}:gtags    HASH  group -> its latest tag; field '' -> the round claims have reached
  KEYS[18] <prefix>:{<queue>}:parked   ZSET  lex: '<group>|<order>|<id>' ready tasks held back by their group's limit, score 0
  KEYS[19] <prefix>:{<queue>}:gactive  HASH  group -> its active tasks
  KEYS[20] <prefix>:{<queue>}:glimits  HASH  group -> most active tasks; field '' -> the limit of every other group
  KEYS[21] <prefix>:{<queue>}:moved    HASH  '<level>|<id>' -> ghost entries of id left in that level's ready list; '' -> all (include: levels)
  ARGV[1] id     task id
  ARGV[2] level  the new priority level: 0 (normal) to 9
  Returns: 'moved' (queued again at the tail of the new level or lane), 'kept' (only its record
    changed: delayed, waiting, or a grouped task that stays in its lane), 'same' (already at that
    level; nothing written), or the refusal 'missing', 'active' or 'dead' ]]
local READY, LEVELS = 2, 6
-- include: levels
local id, level = ARGV[1], tonumber(ARGV[2])
local raw = redis.call('HGET', KEYS[4], id)
if not raw then return 'missing' end
-- Active: its worker holds it, and a retry keeps the level it had (as reschedule, refused).
if redis.call('ZSCORE', KEYS[3], id) then return 'active' end
if redis.call('ZSCORE', KEYS[5], id) then return 'dead' end
local meta = cjson.decode(raw)
local old = meta.p or 0
if old == level then return 'same' end
-- Queued now (not delayed, not waiting on its dependencies), and its place depends on the level:
-- an ungrouped task's list is its level's; a grouped task's lane only tells 0 from the rest.
local requeue = not meta.a and not redis.call('ZSCORE', KEYS[1], id)
  and (not meta.g or (old > 0) ~= (level > 0))
-- Out of the old place first (by the old level): a grouped task's ZSET member goes; an
-- ungrouped one's old entry is left in its list as a ghost, since finding it would be O(N).
if requeue and unqueue(id, meta, KEYS[21]) == 0 then
  -- In no line at all (cannot happen while the invariants hold): nothing to move, nothing written.
  return 'missing'
end
-- As put stores it: no field for level 0.
if level > 0 then meta.p = level else meta.p = nil end
if requeue then push(id, meta) end
redis.call('HSET', KEYS[4], id, cjson.encode(meta))
if requeue then return 'moved' end
return 'kept'
