#!lua
--[[ unschedule: delete a recurring schedule, so that no process puts its occurrences any more.
  KEYS[1] <prefix>:{<queue>}:schedules HASH recurring schedule name -> JSON definition
  KEYS[2] <prefix>:{<queue>}:occurred  HASH recurring schedule name -> latest occurrence put (ms)
  ARGV[1] name  the schedule's name
  Returns: { 1 if the schedule existed else 0, the latest occurrence put (ms) or false } ]]
-- Deleting the definition is what stops every process: put.lua refuses the occurrences of a
-- schedule it does not find. The caller then cancels the latest occurrence if it is pending.
local existed = redis.call('HDEL', KEYS[1], ARGV[1])
local latest = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return { existed, latest }
