#!lua flags=allow-oom
--[[ cancel: delete a delayed, ready or dead task. An active task is left to its worker.
  KEYS[1] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[2] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[3] <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[4] <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[5] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[6] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  ARGV[1] id  task id
  Returns: 1 when deleted, 0 for an active or unknown task ]]
local id = ARGV[1]
if redis.call('HEXISTS', KEYS[5], id) == 0 or redis.call('ZSCORE', KEYS[3], id) then return 0 end
if redis.call('ZREM', KEYS[1], id) == 0 and redis.call('ZREM', KEYS[6], id) == 0 then
  -- O(N) in the ready list's length: LREM has to find the entry.
  redis.call('LREM', KEYS[2], 1, id)
end
redis.call('HDEL', KEYS[4], id)
redis.call('HDEL', KEYS[5], id)
return 1
