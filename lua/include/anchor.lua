--[[ anchor: included by put (through add and replace; not a script itself). A put's `delay`
  counts from the put() call, not from when Redis runs the put (docs/design.md#the-clock). ]]
local anchor = {}

-- The instant a delay counts from: the server's now less `waited`, the ms (a duration on the
-- client's monotonic clock, not a time) the task's put waited in its process before it was sent
-- (options' wt). Never back past an earlier put's anchor (the queue's `anchor` in `counts`, read
-- once a call into C.anchor): a put made after another with the same delay never comes due before
-- it, so put order holds for ties (include: upkeep). Nor past now.
function anchor.at(C, waited)
  if C.anchor == nil then C.anchor = tonumber(redis.call('HGET', C.K.counts, 'anchor')) or false end
  local at, last = C.now - math.max(0, waited or 0), C.anchor
  if last and last > at then at = math.min(last, C.now) end
  if not last or at > last then
    redis.call('HSET', C.K.counts, 'anchor', at)
    C.anchor = at
  end
  return at
end
