--[[ occurrences: included by put (not a script itself). A put for a recurring schedule (ARGV[3]
  not '') puts its occurrences, each with an `at`. Every process that declares a schedule puts
  them, so the first put of each wins: an occurrence at or before the latest one put (`occurred`
  HASH, K.occurred: schedule -> at) is skipped, so each is put once, ever; and none is put once
  the schedule is gone (unschedule took it out of K.schedules). ]]
-- include: options
local schedule = A.schedule
-- The schedule's latest occurrence put (epoch ms), or nil.
local latest = nil

-- Whether the schedule is gone; then each of the `count` tasks is answered in `out` as
-- { '', -1, at }. Else reads the latest occurrence put.
local function gone(out, count)
  if schedule ~= '' and redis.call('HEXISTS', K.schedules, schedule) == 0 then
    for i = 1, count do
      table.insert(out, ''); table.insert(out, -1); table.insert(out, parse(select(3, item(i))).at)
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
