--[[ drained: included by claim (not a script itself). The `drained` lifecycle event: the claim
  that leases a queue's last ready task writes it (events: 'all' only). Ready means waiting in a
  priority level's list, in `grouped` or in `ready`; delayed, parked, waiting and active tasks
  are not ready. A list may still hold ghosts (include: levels): it is not empty then, and the
  claim that takes them leases nothing, so writes no event. ]]
-- include: events

-- Whether a ready task is left: `more` (take's answer) is exact when false; when true it may
-- be a list take emptied without learning so, so each list the levels index names is read
-- (only in a claim that asked for lifecycle events and leased something).
local function readyLeft(more)
  if not more then return false end
  for _, level in ipairs(redis.call('ZRANGE', K.levels, 0, -1)) do
    if level == 'g' then
      if redis.call('ZCARD', K.grouped) > 0 then return true end
    elseif level ~= 'm' and redis.call('LLEN', K['ready' .. level]) > 0 then
      return true
    end
  end
  return redis.call('LLEN', K.ready) > 0
end

-- Writes `drained` when this claim leased the last ready task (`taken` leased, `more` from take).
local function drainedAfter(life, cap, taken, more)
  if life and taken > 0 and not readyLeft(more) then events.emit(C, cap, 'type', 'drained') end
end
