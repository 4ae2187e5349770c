--[[ each: included by every script whose op has slots repeated per item (`each`: put's tasks,
  claim's acks, ...). The call's table holds ARGV (C.V), how many named arguments come first
  (C.named) and the slots per item (C.stride): the function's first line puts them there
  (lib/redis/library.ts, items), so no script reads ARGV by its position. ]]
local each = {}

-- How many items the call carries (the body's ITEMS).
function each.count(C) return (#C.V - C.named) / C.stride end

-- The slots of item i (from 1), in the op's order (`each`).
function each.item(C, i)
  local at = C.named + C.stride * (i - 1)
  return unpack(C.V, at + 1, at + C.stride)
end
