--[[ controls: included by groups (not a script itself). What a group's claims must honour, all
  read from `glimits` (C.K.glimits) in one HMGET once per group a call: its limit (field g, else
  ''), its pause (field 'g|paused': gpause.lua), whether the queue orders its groups (field
  '|ordered': '1', or 'hold' to hold a group behind a dead head too; order.lua) and the group's
  held head (field 'g|head'). A queue with none of them pays one EXISTS a call.
  Ordered groups: each group runs one task at a time (a limit of 1). A task of an ordered group
  whose attempt ends but that will run again (a retry, a snooze, a lapsed lease; with 'hold', its
  death too) holds its group's head: 'g|head' names it until it is leased again (take) or leaves
  for good (dropHead: cancel, expiry, purge, trim), and while it is set no other task of the group
  is leased (heldBack), the group's parked tasks stay parked (groups: unpark), and the head itself,
  when parked (a paused or rate-held group), parks first in its group's order ('!'). ]]
local controls = {}

-- This call's reads of `glimits`, by group (C.controls, made at the call's first look).
function controls.controlsOf(C, g)
  local s = C.controls
  if not s then
    s = { limited = redis.call('EXISTS', C.K.glimits) == 1, limits = {}, pauses = {}, ordering = {}, heads = {} }
    C.controls = s
  end
  if not s.limited or s.limits[g] ~= nil then return s end
  local l = redis.call('HMGET', C.K.glimits, g, '', g .. '|paused', '|ordered', g .. '|head')
  s.limits[g] = tonumber(l[1] or l[2]) or false
  s.ordering[g] = l[4] or false
  -- One at a time in an ordered group, whatever a larger limit says.
  if s.ordering[g] then s.limits[g] = math.min(s.limits[g] or 1, 1) end
  s.pauses[g] = l[3] ~= false
  s.heads[g] = s.ordering[g] and l[5] or false
  return s
end
-- The most active tasks group g may have, or nil for no limit; and whether g is paused (a claim
-- parks its tasks then, keeping their place).
function controls.limitOf(C, g) return controls.controlsOf(C, g).limits[g] or nil end
function controls.pausedGroup(C, g) return controls.controlsOf(C, g).pauses[g] == true end
-- Whether g's queue orders its groups; the id of the task that holds ordered group g's head while
-- it waits, or nil.
function controls.orderedGroup(C, g) return controls.controlsOf(C, g).ordering[g] and true or false end
function controls.headOf(C, g) return controls.controlsOf(C, g).heads[g] or nil end

-- Task id (meta: its record) of an ordered group ended an attempt but will run again (`dead`: it
-- died, which holds the group only with 'hold'): it keeps its group's head. Returns whether it does.
function controls.holdHead(C, id, meta, dead)
  if not meta.g then return false end
  local s = controls.controlsOf(C, meta.g)
  local mode = s.ordering[meta.g]
  if not mode or (dead and mode ~= 'hold') then return false end
  redis.call('HSET', C.K.glimits, meta.g .. '|head', id); s.heads[meta.g] = id
  return true
end

-- Task id of group g no longer holds its head (leased again, or gone). Returns whether it did.
function controls.unhead(C, id, g)
  if not g or controls.headOf(C, g) ~= id then return false end
  redis.call('HDEL', C.K.glimits, g .. '|head'); C.controls.heads[g] = false
  return true
end
