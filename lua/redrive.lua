#!lua
--[[ redrive: send dead tasks back to the ready list with their attempts reset: one task, or
  the oldest deaths first in a batch.
  KEYS[1] <prefix>:{<queue>}:dead   ZSET  member = task id, score = died-at (ms)
  KEYS[2] <prefix>:{<queue>}:ready  LIST  task ids; head = next to claim
  KEYS[3] <prefix>:{<queue>}:meta   HASH  task id -> JSON task metadata
  KEYS[4] <prefix>:{<queue>}:wake   LIST  wake-up tokens for idle workers (at most one)
  KEYS[5]  <prefix>:{<queue>}:levels   ZSET  priority levels whose ready lists may hold tasks, score = level
  KEYS[6]  <prefix>:{<queue>}:ready1   LIST  ready task ids of priority level 1; head = next
  KEYS[7]  <prefix>:{<queue>}:ready2   LIST  ready task ids of priority level 2; head = next
  KEYS[8]  <prefix>:{<queue>}:ready3   LIST  ready task ids of priority level 3; head = next
  KEYS[9]  <prefix>:{<queue>}:ready4   LIST  ready task ids of priority level 4; head = next
  KEYS[10] <prefix>:{<queue>}:ready5   LIST  ready task ids of priority level 5; head = next
  KEYS[11] <prefix>:{<queue>}:ready6   LIST  ready task ids of priority level 6; head = next
  KEYS[12] <prefix>:{<queue>}:ready7   LIST  ready task ids of priority level 7; head = next
  KEYS[13] <prefix>:{<queue>}:ready8   LIST  ready task ids of priority level 8; head = next
  KEYS[14] <prefix>:{<queue>}:ready9   LIST  ready task ids of priority level 9; head = next
  KEYS[15] <prefix>:{<queue>}:grouped  ZSET  ready tasks of fair groups, score = virtual start tag (round)
  KEYS[16] <prefix>:{<queue>}:gtags    HASH  group -> its latest tag; field '' -> the round claims have reached
  KEYS[17] <prefix>:{<queue>}:parked   ZSET  lex: '<group>|<order>|<id>' ready tasks held back by their group's limit, score 0
  KEYS[18] <prefix>:{<queue>}:gactive  HASH  group -> its active tasks
  KEYS[19] <prefix>:{<queue>}:glimits  HASH  group -> most active tasks; field '' -> the limit of every other group
  ARGV[1] id     the task to re-drive, or '' for a batch of the oldest
  ARGV[2] limit  most tasks in a batch
  Returns: how many tasks went back to ready ]]
local READY, LEVELS = 2, 5
-- include: levels
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local ids
if ARGV[1] ~= '' then
  ids = redis.call('ZSCORE', KEYS[1], ARGV[1]) and { ARGV[1] } or {}
else
  ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
end
for _, id in ipairs(ids) do
  local meta = cjson.decode(redis.call('HGET', KEYS[3], id))
  -- A fresh start: all its attempts again, due now, and a new expiry window if it had one.
  meta.n, meta.r = 0, now
  if meta.x then meta.e = now + meta.x end
  redis.call('ZREM', KEYS[1], id)
  redis.call('HSET', KEYS[3], id, cjson.encode(meta))
  push(id, meta)
end
if #ids > 0 and redis.call('LLEN', KEYS[4]) == 0 then redis.call('RPUSH', KEYS[4], '1') end
return #ids
