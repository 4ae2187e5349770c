#!lua
--[[ hold: pause or resume one schedule (every() or schedule()) for every process at once.
  KEYS (as K.<name>; each described in docs/design.md#keys): schedules, occurred
  ARGV[1] name    the schedule's name
  ARGV[2] paused  1 to pause, 0 to resume
  Returns: { 1 if the schedule exists else 0, 1 if this call changed it else 0, the latest
    occurrence put (ms) or false } ]]
-- include: clock
-- The definition's `paused` is what put.lua reads (include: occurrences): once it is written, no
-- occurrence is put, by any process, until resume. The caller cancels those put ahead.
local def = redis.call('HGET', K.schedules, A.name)
local latest = redis.call('HGET', K.occurred, A.name)
if not def then return { 0, 0, latest } end
local d = cjson.decode(def)
local pause = A.paused == '1'
if (d.paused == true) == pause then return { 1, 0, latest } end
if pause then d.paused = true else d.paused = nil end
redis.call('HSET', K.schedules, A.name, cjson.encode(d))
if not pause then
  -- The occurrences that fell due while paused are not wanted: resume from now on, as if they had
  -- been put, so no missed-run policy brings them back.
  local now = clock.now(C)
  if not latest or tonumber(latest) < now then
    latest = tostring(now)
    redis.call('HSET', K.occurred, A.name, latest)
  end
end
return { 1, 1, latest }
