#!lua flags=allow-oom
--[[ purge: delete dead tasks for good, the oldest deaths first, a batch at a time.
  A dead task that held its ordered group's head (orderGroups with holdOnDead) lets the group go on.
  KEYS (as K.<name>; each described in docs/design.md#keys): dead, tasks, progress, deplist, logs,
    wake, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped,
    gtags, parked, gactive, glimits
  ARGV[1] most  most tasks to delete in this call
  Returns: how many were deleted ]]
-- include: logs, wake, heads
local ids = redis.call('ZRANGE', K.dead, 0, tonumber(A.most) - 1)
for _, id in ipairs(ids) do
  redis.call('ZREM', K.dead, id)
  redis.call('HDEL', K.tasks, id)
  redis.call('HDEL', K.progress, id)
  -- Unconditional, unlike the claim's trim: purge is rare, and reading each meta costs more.
  redis.call('HDEL', K.deplist, id)
end
logs.forgetLogs(C, ids)
if heads.dropHeads(C, ids) > 0 then wake.wakeIdle(C) end
return #ids
