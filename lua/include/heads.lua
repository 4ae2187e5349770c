--[[ heads: the one rule for a task that leaves for good while it may hold an ordered group's head:
  the group goes on (dropHead, dropHeads). Included by every path that deletes tasks (cancel,
  clean, purge, the claim's trim of the dead, a task's own dead caps: deadcaps; not a script
  itself), by the claim's drop of an expired task (include: expiry: it releases the head with the
  refill any grouped task leaving unclaimed makes), and by the claim's test of a task held back by
  its group's head (take). See include: controls. ]]
-- include: groups, controls
local heads = {}

-- Whether task id of group g must wait behind its group's held head (take). A head whose task is
-- gone (a path that missed dropping it) no longer holds anything.
function heads.heldBack(C, id, g)
  local head = controls.headOf(C, g)
  if not head or head == id then return false end
  if redis.call('HEXISTS', C.K.tasks, head) == 1 then return true end
  controls.unhead(C, head, g)
  return false
end

-- Task id (meta: its record) leaves for good: when it held its ordered group's head, the group
-- goes on (its first parked task takes the place). Returns how many parked tasks moved back.
function heads.dropHead(C, id, meta)
  if not controls.unhead(C, id, meta.g) then return 0 end
  return groups.refill(C, meta.g)
end

-- Dead tasks `ids` were deleted (purge, clean, the trims by queue and task caps): in a queue whose groups a dead head
-- holds, each group such a task held goes on. One HGET otherwise. Returns how many tasks moved back.
function heads.dropHeads(C, ids)
  if #ids == 0 or redis.call('HGET', C.K.glimits, '|ordered') ~= 'hold' then return 0 end
  local gone, moved, fields = {}, 0, redis.call('HGETALL', C.K.glimits)
  for _, id in ipairs(ids) do gone[id] = true end
  for i = 1, #fields, 2 do
    local g = string.match(fields[i], '^(.+)|head$')
    if g and gone[fields[i + 1]] then moved = moved + heads.dropHead(C, fields[i + 1], { g = g }) end
  end
  return moved
end
