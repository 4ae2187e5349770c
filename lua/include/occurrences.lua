--[[ occurrences: included by put (not a script itself). A put for a recurring schedule (ARGV[3]
  not '') puts its occurrences, each with an `at`. Every process that declares a schedule puts
  them, so the first put of each wins: an occurrence at or before the latest one put (`occurred`
  HASH, K.occurred: schedule -> at) is skipped, so each is put once, ever; and none is put once
  the schedule is gone (unschedule took it out of K.schedules) or paused (its definition's
  `paused`: pauseSchedule), so a pause holds from the moment it is written. ]]
-- include: options
local schedule = A.schedule
-- The schedule's latest occurrence put (epoch ms), or nil.
local latest = nil

-- Whether a schedule's definition (JSON) is paused. The plain find first: a definition that is not
-- paused holds no "paused" (data is stored as a JSON string, its quotes escaped), so its data, up
-- to a payload's size, is not decoded. One that is not JSON is left to the readers that report it.
local function paused(def)
  if not string.find(def, '"paused"', 1, true) then return false end
  local ok, d = pcall(cjson.decode, def)
  return ok and type(d) == 'table' and d.paused == true
end

-- Whether the schedule is gone or paused; then each of the `count` tasks is answered in `out` as
-- { '', -1, at }. Else reads the latest occurrence put.
local function gone(out, count)
  local def = schedule ~= '' and redis.call('HGET', K.schedules, schedule)
  if schedule ~= '' and (not def or paused(def)) then
    for i = 1, count do
      table.insert(out, ''); table.insert(out, -1); table.insert(out, options.parse(C, select(3, item(i))).at)
    end
    return true
  end
  latest = schedule ~= '' and tonumber(redis.call('HGET', K.occurred, schedule)) or nil
  return false
end

-- Whether the occurrence these options put (o.at) was put already; else it is the latest.
local function skipped(o)
  local skip = schedule ~= '' and latest and o.at <= latest
  if schedule ~= '' and not skip then latest = o.at end
  return skip
end

-- Notes the latest occurrence put by this call.
local function occurred()
  if schedule ~= '' and latest then redis.call('HSET', K.occurred, schedule, latest) end
end
