--[[ reopen: included by limit (not a script itself). A group's limit changed: its parked tasks
  move back into `grouped` (include: groups), as many as the new limit has room for. ]]
-- include: groups, controls
local reopen = {}

-- Moves up to `most` of group g's parked tasks back into `grouped`, as many as its limit has room
-- for beside its leases and `before` moved already (tasks already back in `grouped` are not
-- counted: one too many only parks again). Returns how many moved.
function reopen.unpark(C, g, most, before)
  local limit = controls.limitOf(C, g)
  local n = most
  if limit then n = math.min(most, limit - before - (tonumber(redis.call('HGET', C.K.gactive, g)) or 0)) end
  if n <= 0 then return 0 end
  return groups.unpark(C, g, n)
end
