#!lua flags=allow-oom
--[[ beat: a worker's heartbeat. Renews this worker's entry, and lapses at once the leases of
  every worker whose heartbeat has run out (it crashed or hangs), so their tasks are re-delivered
  within about the heartbeat's ttl instead of after their full lease.
  KEYS (as K.<name>; each described in docs/design.md#keys): workers, held, active, wake
  ARGV[1] worker  this worker's id (host:pid:random)
  ARGV[2] ttl     ms until this heartbeat runs out; 0 when the worker leaves
  Returns: how many leases were lapsed ]]
-- include: clock
-- include: wake
local now = nowMs()
local ttl = tonumber(A.ttl)
if ttl > 0 then
  redis.call('ZADD', K.workers, now + ttl, A.worker)
else
  redis.call('ZREM', K.workers, A.worker)
end
local lapsed = 0
for _, w in ipairs(redis.call('ZRANGEBYSCORE', K.workers, '-inf', now, 'LIMIT', 0, 10)) do
  -- Every member that starts with "<w>|": '}' is the character after '|'.
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K.held, '[' .. w .. '|', '(' .. w .. '}')) do
    -- A deadline of now makes the lease lapsed: the next claim re-queues it (or makes it dead).
    lapsed = lapsed + redis.call('ZADD', K.active, 'XX', 'CH', now, string.sub(m, #w + 2))
  end
  redis.call('ZREM', K.workers, w)
end
if lapsed > 0 then wakeIdle() end
return lapsed
