#!lua
--[[ unschedule: delete a recurring schedule, so that no process puts its occurrences any more.
  KEYS (as K.<name>; each described in docs/design.md#keys): schedules, occurred
  ARGV[1] name  the schedule's name
  Returns: { 1 if the schedule existed else 0, the latest occurrence put (ms) or false } ]]
-- Deleting the definition is what stops every process: put.lua refuses the occurrences of a
-- schedule it does not find. The caller then cancels the latest occurrence if it is pending.
local existed = redis.call('HDEL', K.schedules, A.name)
local latest = redis.call('HGET', K.occurred, A.name)
redis.call('HDEL', K.occurred, A.name)
return { existed, latest }
