#!lua flags=allow-oom
--[[ limit: set or remove the most active tasks a queue's groups may have (one group's own limit, or
  the limit of every group without one), then move back into `grouped` the parked tasks that the
  new limit leaves room for, a batch at a time. Allowed on a full Redis: raising a limit is how an
  operator lets parked tasks drain.
  KEYS (as K.<name>; each described in docs/design.md#keys): ready, wake, levels, ready1, ready2,
    ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags, parked, gactive, glimits
  ARGV[1] group  the group whose own limit this is, or '' for the limit of every group without one
  ARGV[2] limit  most active tasks at once, or '' to remove the limit
  ARGV[3] from   '' on the first call; else the `next` the previous call returned, to go on from
  ARGV[4] batch  most parked tasks to move (and groups to look at) in this call
  Returns: { moved, next }: how many parked tasks went back to `grouped`, and where to go on from,
    or '' when no parked task is left that the limit has room for ]]
-- include: wake, groups, controls, reopen
local group, from, batch = A.group, A.from, tonumber(A.batch)
if from == '' then
  if A.limit == '' then redis.call('HDEL', K.glimits, group) else redis.call('HSET', K.glimits, group, A.limit) end
end

local moved, nextFrom = 0, ''
if group ~= '' then
  -- For one group, `from` counts the tasks earlier calls moved, so the batches add up to the room.
  local before = tonumber(from) or 0
  moved = reopen.unpark(C, group, batch, before)
  if moved == batch then nextFrom = tostring(before + moved) end
else
  -- Every group with parked tasks, in name order: the first member at or after `from` names the
  -- next group, and '}' (the character after '|') steps past all of that group's members.
  local cursor, looked = from == '' and '-' or from, 0
  while moved < batch and looked < batch do
    local m = redis.call('ZRANGEBYLEX', K.parked, cursor, '+', 'LIMIT', 0, 1)[1]
    if not m then cursor = nil; break end
    local g = string.match(m, '^([^|]*)|')
    local n = reopen.unpark(C, g, batch - moved, 0)
    moved, looked = moved + n, looked + 1
    -- A group cut short by the batch is looked at again from its own members.
    cursor = (moved == batch) and ('[' .. g .. '|') or ('[' .. g .. '}')
  end
  nextFrom = cursor or ''
end
if moved > 0 then wake.wakeIdle(C) end
return { moved, nextFrom }
