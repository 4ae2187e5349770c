--[[ events: included by the scripts that finish, fail, drop or de-duplicate tasks (not a script
  itself). Each such outcome is appended to the queue's `events` STREAM, which the including script
  passes as KEYS[EVENTS], capped at about `cap` entries (MAXLEN ~, so trimming is cheap); cap 0
  turns events off. The entry id is the server's clock, so consumers order and time events by it.
  Fields: type (completed | failed | dead | expired | deduplicated | cancelled | progress), id (the
  task), and where they apply attempt (the delivery it was), error (the last failure) and progress
  (the value reported, as JSON). ]]
local function emit(cap, ...)
  if cap > 0 then redis.call('XADD', KEYS[EVENTS], 'MAXLEN', '~', cap, '*', ...) end
end

-- An error as an event carries it: its first lines are enough to tell what happened, and a full
-- stack in each of thousands of entries would make the stream large. get() has the whole text.
local function brief(err) return string.sub(err or '', 1, 500) end
