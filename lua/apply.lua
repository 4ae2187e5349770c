#!lua flags=allow-oom
--[[ apply: apply dependency steps a client carried over from another queue's outbox (include:
  deps): settle a waiting task's dependency, register a task of another queue as waiting on one of
  this queue, or forget such a registration. Each step is idempotent, so a step carried twice (its
  carrier died before it could say so) changes nothing the second time.
  KEYS[1] <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[2] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[3] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[4] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[5] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[6] <prefix>:{<queue>}:counts   HASH  counter name -> count
  KEYS[7] <prefix>:{<queue>}:wake     LIST  wake-up tokens for idle workers (at most one)
  KEYS[8] <prefix>:{<queue>}:levels   ZSET  priority levels whose ready lists may hold tasks, score = level
  KEYS[9] <prefix>:{<queue>}:ready1   LIST  ready task ids of priority level 1; head = next
  KEYS[10] <prefix>:{<queue>}:ready2   LIST  ready task ids of priority level 2; head = next
  KEYS[11] <prefix>:{<queue>}:ready3   LIST  ready task ids of priority level 3; head = next
  KEYS[12] <prefix>:{<queue>}:ready4   LIST  ready task ids of priority level 4; head = next
  KEYS[13] <prefix>:{<queue>}:ready5   LIST  ready task ids of priority level 5; head = next
  KEYS[14] <prefix>:{<queue>}:ready6   LIST  ready task ids of priority level 6; head = next
  KEYS[15] <prefix>:{<queue>}:ready7   LIST  ready task ids of priority level 7; head = next
  KEYS[16] <prefix>:{<queue>}:ready8   LIST  ready task ids of priority level 8; head = next
  KEYS[17] <prefix>:{<queue>}:ready9   LIST  ready task ids of priority level 9; head = next
  KEYS[18] <prefix>:{<queue>}:grouped  ZSET  ready tasks of fair groups, score = virtual start tag (round)
  KEYS[19] <prefix>:{<queue>}:gtags    HASH  group -> its latest tag; field '' -> the round claims have reached
  KEYS[20] <prefix>:{<queue>}:parked   ZSET  lex: '<group>|<order>|<id>' ready tasks held back by their group's limit, score 0
  KEYS[21] <prefix>:{<queue>}:gactive  HASH  group -> its active tasks
  KEYS[22] <prefix>:{<queue>}:glimits  HASH  group -> most active tasks; field '' -> the limit of every other group
  KEYS[23] <prefix>:{<queue>}:events   STREAM outcomes (here: dead, cancelled), capped by length
  KEYS[24] <prefix>:{<queue>}:results  HASH  task id -> kept outcome of a finished task (include: outcomes)
  KEYS[25] <prefix>:{<queue>}:kept     ZSET  member = task id, score = when its kept outcome goes (ms)
  KEYS[26] <prefix>:{<queue>}:progress HASH  task id -> JSON progress its handler reported
  KEYS[27] <prefix>:{<queue>}:waiting  HASH  base id -> id of its until-start identity's waiting task (include: identity)
  KEYS[28] <prefix>:{<queue>}:blocked  ZSET  member = task id waiting on its dependencies, score = when put (ms) (include: deps)
  KEYS[29] <prefix>:{<queue>}:after    ZSET  lex: '<id>|<ref>|<ref queue>' dependencies not yet settled, score 0
  KEYS[30] <prefix>:{<queue>}:dependents ZSET lex: '<ref>|<id>|<queue>' tasks waiting on task ref of this queue, score 0
  KEYS[31] <prefix>:{<queue>}:deplist  HASH  task id -> JSON [[queue, hash], ...] the tasks it was put after
  KEYS[32] <prefix>:{<queue>}:settle   LIST  JSON steps of dependency work for this queue, taken by claims
  KEYS[33] <prefix>:{<queue>}:outbox   ZSET  JSON steps for other queues, score = when due (ms); carried by clients
  KEYS[34] <prefix>:{<queue>}:logs     HASH  task id -> its log lines, '<at ms> <JSON string>\n' each, oldest first
  ARGV[1] events  most entries kept in the events stream; 0 for no events
  ARGV[+1] step   a step for this queue, as JSON (include: deps)
  Returns: when this queue's outbox has steps due (ms), or '' ]]
local DATA, META, DELAYED, READY, DEAD, COUNTS, WAKE, LEVELS = 1, 2, 3, 4, 5, 6, 7, 8
local EVENTS, RESULTS, KEPT, PROGRESS, WAITING = 23, 24, 25, 26, 27
local BLOCKED, AFTER, DEPENDENTS, DEPLIST, SETTLE, OUTBOX = 28, 29, 30, 31, 32, 33
local LOGS = 34
-- include: levels
-- include: events
-- include: outcomes
-- include: identity
-- include: deps
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local cap = tonumber(ARGV[1])
for i = 2, #ARGV do
  local step = cjson.decode(ARGV[i])
  -- A step names the queue it is for: one for another queue is not this script's to apply.
  if step[2] == QUEUE then apply(step, now, cap) end
end
-- Steps for this queue that these made (a failure passed down) are applied too, a batch.
if stepped then drain(100, now, cap) end
if stepped and redis.call('LLEN', KEYS[WAKE]) == 0 then redis.call('RPUSH', KEYS[WAKE], '1') end
local due = redis.call('ZRANGE', KEYS[OUTBOX], 0, 0, 'WITHSCORES')[2]
return due or ''
