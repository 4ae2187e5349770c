#!lua flags=allow-oom
--[[ extend: move a held lease's deadline to now + by, if the caller still holds it (fencing).
  KEYS (as K.<name>; each described in docs/design.md#keys): active, tasks
  ARGV[1] id     task id
  ARGV[2] token  the lease token handed out by claim
  ARGV[3] by     new lease length from the server's now (ms)
  Returns: the new lease deadline (ms), or 0 when the lease was lost ]]
-- include: record, clock, lease
local now = clock.now(C)
local meta = lease.held(C, A.id, A.token, now)
if not meta then return 0 end
meta.l = now + tonumber(A.by)
redis.call('ZADD', K.active, meta.l, A.id)
redis.call('HSET', K.tasks, A.id, record.encode(meta))
return meta.l
