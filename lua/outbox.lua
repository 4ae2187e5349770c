#!lua flags=allow-oom
--[[ outbox: a client carrying dependency steps from this queue to others (lib/features/deps.ts) says which
  it has carried, and takes the next steps that are due. A step taken is leased: its score moves
  to now + lease, so another carrier takes it only if this one dies before saying it is carried.
  KEYS (as K.<name>; each described in docs/design.md#keys): outbox
  ARGV[1] lease  ms a taken step stays with its carrier
  ARGV[2] most   most steps to take
  ARGV[+1] step  a step carried (applied in its queue): removed
  Returns: { now, then each step taken } ]]
-- include: clock, each
local now = clock.now(C)
for i = 1, ITEMS do redis.call('ZREM', K.outbox, each.item(C, i)) end
local steps = redis.call('ZRANGEBYSCORE', K.outbox, '-inf', now, 'LIMIT', 0, tonumber(A.most))
local leased = {}
for _, step in ipairs(steps) do table.insert(leased, now + tonumber(A.lease)); table.insert(leased, step) end
if #leased > 0 then redis.call('ZADD', K.outbox, unpack(leased)) end
local out = { now }
for _, step in ipairs(steps) do table.insert(out, step) end
return out
