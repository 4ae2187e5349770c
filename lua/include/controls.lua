--[[ controls: included by groups (not a script itself). What a group's claims must honour, all
  read from `glimits` (K.glimits) in one HMGET once per group a call: its limit (field g, else
  ''), its pause (field 'g|paused': gpause.lua), whether the queue orders its groups (field
  '|ordered': '1', or 'hold' to hold a group behind a dead head too; order.lua) and the group's
  held head (field 'g|head'). A queue with none of them pays one EXISTS a call.
  Ordered groups: each group runs one task at a time (a limit of 1). A task of an ordered group
  whose attempt ends but that will run again (a retry, a snooze, a lapsed lease; with 'hold', its
  death too) holds its group's head: 'g|head' names it until it is leased again (take) or leaves
  for good (dropHead: cancel, expiry, purge, trim), and while it is set no other task of the group
  is leased (heldBack), the group's parked tasks stay parked (groups: unpark), and the head itself,
  when parked (a paused or rate-held group), parks first in its group's order ('!'). ]]

local limited, limits, pauses, ordering, heads = nil, {}, {}, {}, {}
local function controlsOf(g)
  if limited == nil then limited = redis.call('EXISTS', K.glimits) == 1 end
  if not limited or limits[g] ~= nil then return end
  local l = redis.call('HMGET', K.glimits, g, '', g .. '|paused', '|ordered', g .. '|head')
  limits[g] = tonumber(l[1] or l[2]) or false
  ordering[g] = l[4] or false
  -- One at a time in an ordered group, whatever a larger limit says.
  if ordering[g] then limits[g] = math.min(limits[g] or 1, 1) end
  pauses[g] = l[3] ~= false
  heads[g] = ordering[g] and l[5] or false
end
-- The most active tasks group g may have, or nil for no limit; and whether g is paused (a claim
-- parks its tasks then, keeping their place).
local function limitOf(g) controlsOf(g); return limits[g] or nil end
local function pausedGroup(g) controlsOf(g); return pauses[g] == true end
-- Whether g's queue orders its groups; the id of the task that holds ordered group g's head while
-- it waits, or nil.
local function orderedGroup(g) controlsOf(g); return ordering[g] and true or false end
local function headOf(g) controlsOf(g); return heads[g] or nil end

-- Task id (meta: its record) of an ordered group ended an attempt but will run again (`dead`: it
-- died, which holds the group only with 'hold'): it keeps its group's head. Returns whether it does.
local function holdHead(id, meta, dead)
  if not meta.g then return false end
  controlsOf(meta.g)
  local mode = ordering[meta.g]
  if not mode or (dead and mode ~= 'hold') then return false end
  redis.call('HSET', K.glimits, meta.g .. '|head', id); heads[meta.g] = id
  return true
end

-- Task id of group g no longer holds its head (leased again, or gone). Returns whether it did.
local function unhead(id, g)
  if not g or headOf(g) ~= id then return false end
  redis.call('HDEL', K.glimits, g .. '|head'); heads[g] = false
  return true
end
