#!lua flags=allow-oom
--[[ release: hand a held task back unfinished (a worker shutting down), if the caller still holds
  its lease. The delivery is not counted against its attempts, and it goes to the head of its
  level's ready list, since it was already due.
  KEYS[1] <prefix>:{<queue>}:active  ZSET  member = task id, score = lease deadline (ms)
  KEYS[2] <prefix>:{<queue>}:ready   LIST  task ids; head = next to claim
  KEYS[3] <prefix>:{<queue>}:meta    HASH  task id -> JSON task metadata
  KEYS[4] <prefix>:{<queue>}:held    ZSET  lex index: member = worker id .. '|' .. task id, score 0
  KEYS[5] <prefix>:{<queue>}:wake    LIST  wake-up tokens for idle workers (at most one)
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
  ARGV[1] id     task id
  ARGV[2] token  the lease token handed out by claim
  Returns: 1 when released, 0 when the lease was already lost ]]
local READY, LEVELS = 2, 6
-- include: levels
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local id = ARGV[1]
local deadline = tonumber(redis.call('ZSCORE', KEYS[1], id))
if not deadline or deadline <= now then return 0 end
local meta = cjson.decode(redis.call('HGET', KEYS[3], id))
if meta.t ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[1], id)
redis.call('ZREM', KEYS[4], meta.w .. '|' .. id)
meta.n, meta.t, meta.l, meta.w = math.max(0, meta.n - 1), nil, nil, nil
redis.call('HSET', KEYS[3], id, cjson.encode(meta))
push(id, meta, true)
-- Queued at the current round, it takes its group's place again itself.
finished(meta, true)
if redis.call('LLEN', KEYS[5]) == 0 then redis.call('RPUSH', KEYS[5], '1') end
return 1
