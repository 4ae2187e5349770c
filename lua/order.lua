#!lua flags=allow-oom
--[[ order: make a queue's fair groups ordered, or not (orderGroups). In an ordered queue each group
  runs one task at a time, in its order, and a task that will run again holds its group's head
  meanwhile (include: controls). The setting is the `glimits` field '|ordered' ('1', or 'hold' to
  hold a group behind a dead head too), which claims read with each group's limit. Turning it off
  releases every hold; turning it on without 'hold' releases the holds of dead heads, and of heads
  whose task is gone (no path should leave one: include: heads; a claim meeting it releases it
  too, but its parked tasks wait for that claim). The caller then moves back the parked tasks the
  new setting has room for (limit.lua, from '-').
  KEYS (as K.<name>; each described in docs/design.md#keys): glimits, dead, tasks
  ARGV[1] mode  '1' (ordered), 'hold' (ordered, a dead head holds its group) or '' (not ordered)
  Returns: how many holds were released ]]
local released = 0
if A.mode == '' then redis.call('HDEL', K.glimits, '|ordered') else redis.call('HSET', K.glimits, '|ordered', A.mode) end
if A.mode ~= 'hold' then
  -- The hash holds a field per limited group, paused group and held head: small.
  local fields = redis.call('HGETALL', K.glimits)
  for i = 1, #fields, 2 do
    local head = string.match(fields[i], '.|head$') and fields[i + 1]
    if head and (A.mode == '' or redis.call('ZSCORE', K.dead, head) or redis.call('HEXISTS', K.tasks, head) == 0) then
      redis.call('HDEL', K.glimits, fields[i])
      released = released + 1
    end
  end
end
return released
