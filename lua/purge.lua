#!lua flags=allow-oom
--[[ purge: delete dead tasks for good, the oldest deaths first, a batch at a time.
  KEYS[1] <prefix>:{<queue>}:dead  ZSET  member = task id, score = died-at (ms)
  KEYS[2] <prefix>:{<queue>}:data  HASH  task id -> canonical JSON payload
  KEYS[3] <prefix>:{<queue>}:meta  HASH  task id -> JSON task metadata
  KEYS[4] <prefix>:{<queue>}:progress HASH  task id -> JSON progress its handler reported
  KEYS[5] <prefix>:{<queue>}:deplist  HASH  task id -> JSON [[queue, hash], ...] the tasks it was put after
  KEYS[6] <prefix>:{<queue>}:logs     HASH  task id -> its log lines, '<at ms> <JSON string>\n' each, oldest first
  ARGV[1] limit  most tasks to delete in this call
  Returns: how many were deleted ]]
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
  -- Unconditional, unlike the claim's trim: purge is rare, and reading each meta costs more.
  redis.call('HDEL', KEYS[5], id)
  redis.call('HDEL', KEYS[6], id)
end
return #ids
