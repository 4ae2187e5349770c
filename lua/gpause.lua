#!lua flags=allow-oom
--[[ gpause: pause or resume one fair group of a queue. A paused group's tasks stay put: claims
  park each one they meet (include: take), keeping its place in the group's order, and nothing
  brings them back while it is paused; the other groups run. The flag is a field of `glimits`
  ('<group>|paused'), which claims read with the group's limit in the same HMGET, so a queue with no
  paused group pays nothing for it; `gpaused` lists the paused groups for stats and groupLimits.
  Resume moves the group's parked tasks back into `grouped` in their order, each at the tag it was
  parked at (include: groups), so none falls behind a later task of its group; as many as its
  limit has room for (the rest come back as its tasks finish), a batch a call.
  A change writes a `paused` or `resumed` event with the group (include: events), whatever the
  scheduler's events option: rare admin calls.
  KEYS (as K.<name>; each described in docs/design.md#keys): glimits, gpaused, wake, levels,
    grouped, gtags, parked, gactive, events
  ARGV[1] group   the group
  ARGV[2] paused  1 to pause, 0 to resume
  ARGV[3] more    1 for a later call of the same resume (moves more tasks, changes no flag), else 0
  ARGV[4] batch   most parked tasks to move in this call
  ARGV[5] events  most entries kept in the events stream; 0 for no events
  Returns: { changed, moved }: changed 1 when this call changed the group's state, else 0; moved
    how many parked tasks went back into `grouped` ]]
-- include: wake, groups, events, controls
local g, cap = A.group, tonumber(A.events)
if A.paused == '1' then
  redis.call('HSET', K.glimits, g .. '|paused', '1')
  local changed = redis.call('HSET', K.gpaused, g, '1')
  if changed == 1 then events.emit(C, cap, 'type', 'paused', 'group', g) end
  return { changed, 0 }
end
local changed = 0
if A.more == '1' then
  -- Paused again since the resume began: its tasks stay.
  if redis.call('HEXISTS', K.gpaused, g) == 1 then return { 0, 0 } end
else
  changed = redis.call('HDEL', K.gpaused, g)
  redis.call('HDEL', K.glimits, g .. '|paused')
  if changed == 1 then events.emit(C, cap, 'type', 'resumed', 'group', g) end
end
local n, limit = tonumber(A.batch), controls.limitOf(C, g)
if limit then n = math.min(n, limit - (tonumber(redis.call('HGET', K.gactive, g)) or 0)) end
if n <= 0 then return { changed, 0 } end
-- Parked members are '<group>|<order>|<id>', in the group's order; an order starting with '0' is
-- the group's priority lane.
local members = redis.call('ZRANGEBYLEX', K.parked, '[' .. g .. '|', '(' .. g .. '}', 'LIMIT', 0, n)
-- Each goes back at the tag it was parked at (include: groups, unparkMember), below every later
-- task of its lane, some of which may wait in `grouped` still (no claim reached them) or be put
-- between two calls of this resume: a new tag would put it behind those. The group so catches up
-- on the turns it missed while paused, as far as its limit lets it.
for _, m in ipairs(members) do groups.unparkMember(C, m) end
if #members > 0 then
  redis.call('ZADD', K.levels, 0.5, 'g')
  wake.wakeIdle(C)
end
return { changed, #members }
