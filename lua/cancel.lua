#!lua flags=allow-oom
--[[ cancel: delete a delayed, ready, waiting or dead task. An active task is left to its worker.
  The tasks waiting on it learn that it was cancelled; a waiting task leaves the lists of the
  tasks it waited on (include: deps).
  KEYS[1] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[2] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[3] <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[4] <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[5] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[6] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[7]  <prefix>:{<queue>}:levels   ZSET  priority levels whose ready lists may hold tasks, score = level
  KEYS[8]  <prefix>:{<queue>}:ready1   LIST  ready task ids of priority level 1; head = next
  KEYS[9]  <prefix>:{<queue>}:ready2   LIST  ready task ids of priority level 2; head = next
  KEYS[10] <prefix>:{<queue>}:ready3   LIST  ready task ids of priority level 3; head = next
  KEYS[11] <prefix>:{<queue>}:ready4   LIST  ready task ids of priority level 4; head = next
  KEYS[12] <prefix>:{<queue>}:ready5   LIST  ready task ids of priority level 5; head = next
  KEYS[13] <prefix>:{<queue>}:ready6   LIST  ready task ids of priority level 6; head = next
  KEYS[14] <prefix>:{<queue>}:ready7   LIST  ready task ids of priority level 7; head = next
  KEYS[15] <prefix>:{<queue>}:ready8   LIST  ready task ids of priority level 8; head = next
  KEYS[16] <prefix>:{<queue>}:ready9   LIST  ready task ids of priority level 9; head = next
  KEYS[17] <prefix>:{<queue>}:grouped  ZSET  ready tasks of fair groups, score = virtual start tag (round)
  KEYS[18] <prefix>:{<queue>}:gtags    HASH  group -> its latest tag; field '' -> the round claims have reached
  KEYS[19] <prefix>:{<queue>}:parked   ZSET  lex: '<group>|<order>|<id>' ready tasks held back by their group's limit, score 0
  KEYS[20] <prefix>:{<queue>}:gactive  HASH  group -> its active tasks
  KEYS[21] <prefix>:{<queue>}:glimits  HASH  group -> most active tasks; field '' -> the limit of every other group
  KEYS[22] <prefix>:{<queue>}:events   STREAM outcomes (here: cancelled), capped by length
  KEYS[23] <prefix>:{<queue>}:results  HASH  task id -> kept outcome of a finished task (include: outcomes)
  KEYS[24] <prefix>:{<queue>}:kept     ZSET  member = task id, score = when its kept outcome goes (ms)
  KEYS[25] <prefix>:{<queue>}:progress HASH  task id -> JSON progress its handler reported
  KEYS[26] <prefix>:{<queue>}:waiting  HASH  base id -> id of its until-start identity's waiting task (include: identity)
  KEYS[27] <prefix>:{<queue>}:counts   HASH  counter name -> count
  KEYS[28] <prefix>:{<queue>}:wake     LIST  wake-up tokens for idle workers (at most one)
  KEYS[29] <prefix>:{<queue>}:blocked  ZSET  member = task id waiting on its dependencies, score = when put (ms) (include: deps)
  KEYS[30] <prefix>:{<queue>}:after    ZSET  lex: '<id>|<ref>|<ref queue>' dependencies not yet settled, score 0
  KEYS[31] <prefix>:{<queue>}:dependents ZSET lex: '<ref>|<id>|<queue>' tasks waiting on task ref of this queue, score 0
  KEYS[32] <prefix>:{<queue>}:deplist  HASH  task id -> JSON [[queue, hash], ...] the tasks it was put after
  KEYS[33] <prefix>:{<queue>}:settle   LIST  JSON steps of dependency work for this queue, taken by claims
  KEYS[34] <prefix>:{<queue>}:outbox   ZSET  JSON steps for other queues, score = when due (ms); carried by clients
  KEYS[35] <prefix>:{<queue>}:logs     HASH  task id -> its log lines, '<at ms> <JSON string>\n' each, oldest first
  KEYS[36] <prefix>:{<queue>}:moved    HASH  '<level>|<id>' -> ghost entries of id left in that level's ready list; '' -> all (include: levels)
  ARGV[1] id      task id
  ARGV[2] events  most entries kept in the events stream; 0 for no events
  Returns: 1 when deleted (2 when that made steps for other queues, for the caller to carry), 0
    for an active or unknown task ]]
local READY, LEVELS, EVENTS, RESULTS, KEPT, PROGRESS = 2, 7, 22, 23, 24, 25
local DATA, META, DEAD, WAITING = 4, 5, 6, 26
local DELAYED, COUNTS, WAKE, BLOCKED, AFTER, DEPENDENTS, DEPLIST, SETTLE, OUTBOX = 1, 27, 28, 29, 30, 31, 32, 33, 34
local LOGS, MOVED = 35, 36
-- include: levels
-- include: events
-- include: outcomes
-- include: identity
-- include: deps
local id = ARGV[1]
local raw = redis.call('HGET', KEYS[5], id)
if not raw or redis.call('ZSCORE', KEYS[3], id) then return 0 end
local meta = cjson.decode(raw)
if redis.call('ZREM', KEYS[6], id) == 0 then
  -- A pending task ends here: its outcome is 'cancelled'. (A dead one's outcome was kept when it died.)
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  if meta.a then unwait(id, now) elseif redis.call('ZREM', KEYS[1], id) == 0 then unqueue(id, meta, KEYS[MOVED]) end
  unpoint(id, meta)
  fire(id, meta, 'cancelled', now)
  if meta.n > 0 then emitFor(tonumber(ARGV[2]), meta, 'type', 'cancelled', 'id', id, 'attempt', meta.n) else emitFor(tonumber(ARGV[2]), meta, 'type', 'cancelled', 'id', id) end
  keepOutcome(id, meta, now, 'cancelled')
end
redis.call('HDEL', KEYS[4], id)
redis.call('HDEL', KEYS[5], id)
if meta.pg then redis.call('HDEL', KEYS[PROGRESS], id) end
if meta.lg then redis.call('HDEL', KEYS[LOGS], id) end
if meta.dl then redis.call('HDEL', KEYS[DEPLIST], id) end
if stepped then
  -- The tasks that waited on it learn now (a batch; claims take the rest).
  local t = redis.call('TIME')
  drain(100, t[1] * 1000 + math.floor(t[2] / 1000), tonumber(ARGV[2]))
  if redis.call('LLEN', KEYS[WAKE]) == 0 then redis.call('RPUSH', KEYS[WAKE], '1') end
end
if outboxed then return 2 end
return 1
