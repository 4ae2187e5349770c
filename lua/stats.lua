#!lua flags=no-writes
--[[ stats: count a queue's tasks by state, plus its lifetime counters, in one consistent view.
  KEYS[1] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[2] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[3] <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[4] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[5] <prefix>:{<queue>}:counts   HASH  counter name -> count
  Returns: { ready, delayed, active, dead, counter name, count, ... } ]]
local out = {
  redis.call('LLEN', KEYS[1]), redis.call('ZCARD', KEYS[2]),
  redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[4]),
}
for _, v in ipairs(redis.call('HGETALL', KEYS[5])) do table.insert(out, v) end
return out
