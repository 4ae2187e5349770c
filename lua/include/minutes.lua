--[[ minutes: each attempt's outcome counted per minute for the last 24 hours (throughput over a
  day: lib/features/minutes.ts), included by the scripts that end attempts (claim and fail, through
  acks and attempt). One HASH per queue, C.K.minutes: fields '<kind><minute>' -> count, kind c
  (completed), f (failed, retrying) or d (dead), minute = floor(now / 60000) on the server's clock;
  and 'swept', the newest minute whose fields are deleted. The common call costs one HINCRBY. Only
  the first count of a kind in a minute does more: it deletes the minutes that have left the day
  (from 'swept' on, so each minute is deleted once, and all the deleting of a minute happens in one
  call) and sets the key to expire a day and a minute later, so an idle queue's key goes away. ]]
-- include: many
local minutes = {}

local MINUTE_MS = 60000
local MINUTES_KEPT = 1440

-- Deletes the minutes of C.K.minutes older than the day before `minute`.
function minutes.sweepMinutes(C, minute)
  local cutoff = minute - MINUTES_KEPT
  local swept = tonumber(redis.call('HGET', C.K.minutes, 'swept'))
  if swept and swept >= cutoff then return end
  redis.call('HSET', C.K.minutes, 'swept', cutoff)
  -- No 'swept' yet: the key is new (a field's first count always sweeps), so nothing older is in it.
  -- The key expires a day and a minute after its last new field, so the range is at most a day.
  if not swept then return end
  local gone = {}
  for m = math.max(swept + 1, cutoff - MINUTES_KEPT), cutoff do
    table.insert(gone, 'c' .. m); table.insert(gone, 'f' .. m); table.insert(gone, 'd' .. m)
  end
  many.many('HDEL', C.K.minutes, gone)
end

-- Counts `n` outcomes of `kind` ('c', 'f' or 'd') in the minute of `now`.
function minutes.countMinute(C, kind, n, now)
  local minute = math.floor(now / MINUTE_MS)
  if redis.call('HINCRBY', C.K.minutes, kind .. minute, n) ~= n then return end
  minutes.sweepMinutes(C, minute)
  redis.call('PEXPIRE', C.K.minutes, (MINUTES_KEPT + 1) * MINUTE_MS)
end
