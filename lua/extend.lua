#!lua flags=allow-oom
--[[ extend: move a held lease's deadline to now + by, if the caller still holds it (fencing).
  KEYS (as K.<name>; each described in docs/design.md#keys): active, meta
  ARGV[1] id     task id
  ARGV[2] token  the lease token handed out by claim
  ARGV[3] by     new lease length from the server's now (ms)
  Returns: the new lease deadline (ms), or 0 when the lease was lost ]]
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local deadline = tonumber(redis.call('ZSCORE', K.active, ARGV[1]))
if not deadline or deadline <= now then return 0 end
local meta = cjson.decode(redis.call('HGET', K.meta, ARGV[1]))
if meta.t ~= ARGV[2] then return 0 end
meta.l = now + tonumber(ARGV[3])
redis.call('ZADD', K.active, meta.l, ARGV[1])
redis.call('HSET', K.meta, ARGV[1], cjson.encode(meta))
return meta.l
