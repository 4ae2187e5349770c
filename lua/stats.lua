#!lua flags=no-writes
--[[ stats: count a queue's tasks by state, plus its lifetime counters, in one consistent view.
  KEYS[1] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[2] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[3] <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[4] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[5] <prefix>:{<queue>}:counts   HASH  counter name -> count
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
  KEYS[21] <prefix>:{<queue>}:paused   STRING present while the queue is paused: claims lease nothing
  KEYS[22] <prefix>:{<queue>}:blocked  ZSET  member = task id waiting on its dependencies, score = when put (ms) (include: deps)
  KEYS[23] <prefix>:{<queue>}:moved    HASH  '<level>|<id>' -> ghost entries of id left in that level's ready list; '' -> all (include: levels)
  Returns: { ready, delayed, active, dead, waiting, paused (1|0), counter name, count, ... } ]]
-- Ready tasks wait in the level-0 list, the nine priority-level lists and the grouped set.
local ready = redis.call('LLEN', KEYS[1])
for level = 1, 9 do ready = ready + redis.call('LLEN', KEYS[6 + level]) end
-- Tasks parked while their group is at its limit are ready too: only the limit holds them.
ready = ready + redis.call('ZCARD', KEYS[16]) + redis.call('ZCARD', KEYS[18])
-- Ghosts (entries left behind by cancels, reschedules, priority changes) are not tasks (include: levels).
ready = ready - (tonumber(redis.call('HGET', KEYS[23], '')) or 0)
local out = {
  ready, redis.call('ZCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[4]), redis.call('ZCARD', KEYS[22]),
  redis.call('EXISTS', KEYS[21]),
}
for _, v in ipairs(redis.call('HGETALL', KEYS[5])) do table.insert(out, v) end
return out
