#!lua
--[[ reschedule: move a pending (delayed, ready or waiting) task's run-at. A ready task moved into the
  future goes back to the delayed set; a delayed task moved to now or earlier becomes ready.
  KEYS[1] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[2] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[3] <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[4] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[5] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[6] <prefix>:{<queue>}:wake     LIST  wake-up tokens for idle workers (at most one)
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
  KEYS[22] <prefix>:{<queue>}:moved    HASH  '<level>|<id>' -> ghost entries of id left in that level's ready list; '' -> all (include: levels)
  ARGV[1] id  task id
  ARGV[2] at  new run-at (epoch ms)
  Returns: 1 when moved, 0 for an active, dead or unknown task ]]
local READY, LEVELS, MOVED = 2, 7, 22
-- include: levels
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local id, at = ARGV[1], tonumber(ARGV[2])
local raw = redis.call('HGET', KEYS[4], id)
if not raw or redis.call('ZSCORE', KEYS[3], id) or redis.call('ZSCORE', KEYS[5], id) then return 0 end
local meta = cjson.decode(raw)
local delayed = redis.call('ZSCORE', KEYS[1], id)
-- The expiry window moves with the run-at: it counts from when the task becomes due.
meta.r = at
if meta.x then meta.e = at + meta.x end
if meta.a then
  -- Waiting on its dependencies (include: deps): it keeps waiting, and is queued for this run-at.
  redis.call('HSET', KEYS[4], id, cjson.encode(meta))
  return 1
end
local wake = false
if at > now then
  if not delayed then unqueue(id, meta, KEYS[MOVED]) end
  redis.call('ZADD', KEYS[1], at, id)
  wake = redis.call('ZRANGE', KEYS[1], 0, 0)[1] == id
elseif delayed then
  redis.call('ZREM', KEYS[1], id)
  push(id, meta)
  wake = true
end
redis.call('HSET', KEYS[4], id, cjson.encode(meta))
if wake and redis.call('LLEN', KEYS[6]) == 0 then redis.call('RPUSH', KEYS[6], '1') end
return 1
