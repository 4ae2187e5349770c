--[[ anchor: included by put (through add and replace; not a script itself). A put's `delay`
  counts from the put() call, not from when Redis runs the put (docs/design.md#the-clock). ]]
local anchor = {}

-- The instant this call's delays count from, worked out once a call: the client sends how long
-- (ms, on its monotonic clock: a duration, not a time) the call's youngest put waited before it was
-- sent (C.A.waited), and the anchor is the server's now less that. It never goes back past the anchor of an earlier
-- put call (the queue's `anchor` in `counts`): a put made after another with the same delay never
-- comes due before it, so put order holds for ties (include: upkeep). Nor past now.
function anchor.at(C)
  if C.anchor then return C.anchor end
  local waited = tonumber(C.A.waited) or 0
  local at = C.now - waited
  local last = tonumber(redis.call('HGET', C.K.counts, 'anchor'))
  if last and last > at then at = math.min(last, C.now) end
  if not last or at > last then redis.call('HSET', C.K.counts, 'anchor', at) end
  C.anchor = at
  return at
end
