#!lua flags=no-writes
--[[ dead: list dead tasks, most recent death first, for inspection.
  KEYS[1] <prefix>:{<queue>}:dead  ZSET  member = task id, score = died-at (ms)
  KEYS[2] <prefix>:{<queue>}:data  HASH  task id -> canonical JSON payload
  KEYS[3] <prefix>:{<queue>}:meta  HASH  task id -> JSON task metadata
  ARGV[1] offset  how many of the most recent to skip
  ARGV[2] limit   most tasks to return
  Returns: { id, payload, meta JSON, died-at, ... } four entries per task ]]
local out = {}
local first = tonumber(ARGV[1])
local ids = redis.call('ZREVRANGE', KEYS[1], first, first + tonumber(ARGV[2]) - 1, 'WITHSCORES')
for i = 1, #ids, 2 do
  local id = ids[i]
  table.insert(out, id)
  table.insert(out, redis.call('HGET', KEYS[2], id))
  table.insert(out, redis.call('HGET', KEYS[3], id))
  table.insert(out, ids[i + 1])
end
return out
