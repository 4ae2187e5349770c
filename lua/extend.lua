#!lua flags=allow-oom
--[[ extend: move a held lease's deadline to now + by, if the caller still holds it (fencing).
  KEYS[1] <prefix>:{<queue>}:active  ZSET  member = task id, score = lease deadline (ms)
  KEYS[2] <prefix>:{<queue>}:meta    HASH  task id -> JSON task metadata
  ARGV[1] id     task id
  ARGV[2] token  the lease token handed out by claim
  ARGV[3] by     new lease length from the server's now (ms)
  Returns: the new lease deadline (ms), or 0 when the lease was lost ]]
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local deadline = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if not deadline or deadline <= now then return 0 end
local meta = cjson.decode(redis.call('HGET', KEYS[2], ARGV[1]))
if meta.t ~= ARGV[2] then return 0 end
meta.l = now + tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], meta.l, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(meta))
return meta.l
