--[[ drained: included by claim (not a script itself). The `drained` lifecycle event: the claim
  that leases a queue's last ready task writes it (events: 'all' only). Ready means waiting in a
  priority level's list, in `grouped` or in `ready`; delayed, parked, waiting and active tasks
  are not ready. A list may still hold ghosts (include: levels): it is not empty then, and the
  claim that takes them leases nothing, so writes no event. ]]
-- include: events
local drained = {}

-- Whether a ready task is left: `more` (take's answer) is exact when false; when true it may
-- be a list take emptied without learning so, so each list the levels index names is read
-- (only in a claim that asked for lifecycle events and leased something).
function drained.readyLeft(C, more)
  if not more then return false end
  for _, level in ipairs(redis.call('ZRANGE', C.K.levels, 0, -1)) do
    if level == 'g' then
      if redis.call('ZCARD', C.K.grouped) > 0 then return true end
    elseif level ~= 'm' and redis.call('LLEN', C.K['ready' .. level]) > 0 then
      return true
    end
  end
  return redis.call('LLEN', C.K.ready) > 0
end

-- Writes `drained` when this claim leased the last ready task (`taken` leased, `more` from take).
function drained.drainedAfter(C, life, cap, taken, more)
  if life and taken > 0 and not drained.readyLeft(C, more) then events.emit(C, cap, 'type', 'drained') end
end
