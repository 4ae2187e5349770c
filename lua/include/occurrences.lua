--[[ occurrences: included by put (not a script itself). A put for a recurring schedule (ARGV[3]
  not '') puts its occurrences, each with an `at`. Every process that declares a schedule puts
  them, so the first put of each wins: an occurrence at or before the latest one put (`occurred`
  HASH, C.K.occurred: schedule -> at) is skipped, so each is put once, ever; and none is put once
  the schedule is gone (unschedule took it out of C.K.schedules) or paused (its definition's
  `paused`: pauseSchedule), so a pause holds from the moment it is written. ]]
-- include: options, each
local occurrences = {}

-- The schedule (A.schedule, '' for plain puts) and its latest occurrence put (epoch ms, or nil),
-- read once a call by gone() and kept in C.latest.

-- Whether a schedule's definition (JSON) is paused. The plain find first: a definition that is not
-- paused holds no "paused" (data is stored as a JSON string, its quotes escaped), so its data, up
-- to a payload's size, is not decoded. One that is not JSON is left to the readers that report it.
function occurrences.paused(def)
  if not string.find(def, '"paused"', 1, true) then return false end
  local ok, d = pcall(cjson.decode, def)
  return ok and type(d) == 'table' and d.paused == true
end

-- Whether the schedule is gone or paused; then each of the `count` tasks is answered in `out` as
-- { '', -1, at }. Else reads the latest occurrence put.
function occurrences.gone(C, out, count)
  local schedule = C.A.schedule
  local def = schedule ~= '' and redis.call('HGET', C.K.schedules, schedule)
  if schedule ~= '' and (not def or occurrences.paused(def)) then
    for i = 1, count do
      table.insert(out, ''); table.insert(out, -1); table.insert(out, options.parse(C, select(3, each.item(C, i))).at)
    end
    return true
  end
  C.latest = schedule ~= '' and tonumber(redis.call('HGET', C.K.occurred, schedule)) or nil
  return false
end

-- Whether the occurrence these options put (o.at) was put already; else it is the latest.
function occurrences.skipped(C, o)
  local schedule = C.A.schedule
  local skip = schedule ~= '' and C.latest and o.at <= C.latest
  if schedule ~= '' and not skip then C.latest = o.at end
  return skip
end

-- Notes the latest occurrence put by this call.
function occurrences.occurred(C)
  local schedule = C.A.schedule
  if schedule ~= '' and C.latest then redis.call('HSET', C.K.occurred, schedule, C.latest) end
end
