--[[ many: included by the scripts that pass many values to one command (not a script itself). Lua's
  unpack() has a stack limit of a few thousand values ("too many results to unpack"), and a list may
  hold 10,000 dependencies or dependents, or a whole dead set's batch: such lists go in slices of
  SLICE, sliced here and nowhere else (a list bounded by its call, as put's 250 tasks or claim's
  count, is unpacked whole). SLICE is even, so field-value and score-member pairs stay whole. ]]
local many = {}

local SLICE = 1000

-- The values of `list` in slices of up to SLICE, each a table of its own: for a slice that several
-- commands take, or whose replies line up with it.
function many.slices(list)
  local i = 1
  return function()
    if i > #list then return nil end
    local part = { unpack(list, i, math.min(i + SLICE - 1, #list)) }
    i = i + SLICE
    return part
  end
end

-- Runs a variadic command on `key` with the values of `list`, a slice per call.
function many.many(cmd, key, list)
  for i = 1, #list, SLICE do redis.call(cmd, key, unpack(list, i, math.min(i + SLICE - 1, #list))) end
end
