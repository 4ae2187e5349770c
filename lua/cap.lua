#!lua flags=allow-oom
--[[ cap: set or remove a queue's own limits (include: limits, in claim) in one step, then wake an
  idle worker, since a raised or removed limit may let it lease (and have the next claim look again
  at the groups a rate limit holds). Allowed on a full Redis: raising a
  limit is how an operator lets a queue drain.
  KEYS (as K.<name>; each described in docs/design.md#keys): limits, wake, gheld
  ARGV[1] count  number of fields to change; then 2 slots per field, starting at ARGV[2]:
  ARGV[+1] name  the field: concurrency, rate, per or until
  ARGV[+2] value its new value; '' removes it; '+<ms>' is that long after the server's now
  Returns: the values written, in order ('' for a removal) ]]
-- include: clock, wake, each
local now = clock.now(C)
local out = {}
for i = 1, tonumber(A.count) do
  local name, value = each.item(C, i)
  if string.sub(value, 1, 1) == '+' then value = tostring(now + tonumber(string.sub(value, 2))) end
  if value == '' then redis.call('HDEL', K.limits, name) else redis.call('HSET', K.limits, name, value) end
  table.insert(out, value)
end
-- Groups held by a rate limit are looked at again by the next claim, under the new limits (a
-- removed or raised one lets their parked tasks go; one still in force parks them again).
for _, g in ipairs(redis.call('ZRANGE', K.gheld, 0, -1)) do redis.call('ZADD', K.gheld, 0, g) end
wake.wakeIdle(C)
return out
