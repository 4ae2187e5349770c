#!lua flags=allow-oom
--[[ ack: finish a leased task and delete it, if the caller still holds its lease (fencing).
  KEYS[1] <prefix>:{<queue>}:active  ZSET  member = task id, score = lease deadline (ms)
  KEYS[2] <prefix>:{<queue>}:data    HASH  task id -> canonical JSON payload
  KEYS[3] <prefix>:{<queue>}:meta    HASH  task id -> JSON task metadata
  ARGV[1] id     task id
  ARGV[2] token  the lease token handed out by claim
  Returns: 1 when acked, 0 when the lease was lost (lapsed, or re-leased to another worker) ]]
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local deadline = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if not deadline or deadline <= now then return 0 end
local meta = cjson.decode(redis.call('HGET', KEYS[3], ARGV[1]))
if meta.t ~= ARGV[2] then return 0 end
-- A finished task leaves no keys behind, and its de-dup identity is free again.
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
