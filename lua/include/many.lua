--[[ many: included by the scripts that write many members in one call (put, claim). ]]

-- Runs a variadic command in slices: Lua's unpack() has a stack limit of a few thousand values.
-- Slices hold 1000 values, an even number, so field-value and score-member pairs stay whole.
local function many(cmd, key, list)
  for i = 1, #list, 1000 do redis.call(cmd, key, unpack(list, i, math.min(i + 999, #list))) end
end
