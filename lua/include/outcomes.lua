--[[ outcomes: included by the scripts that finish tasks (not a script itself). A task put (or
  leased by a worker) with `keepResult` has meta.kr, the span in ms its outcome is kept once it
  finishes. The outcome goes to the `results` HASH (C.K.results) as one string,
  'state|finished-at|attempts|keep-until|body' (body: the result's JSON for 'done', the last error
  for 'dead', else empty; it is never decoded here, so cjson cannot change a number in it), and
  its keep-until to the `kept` ZSET (C.K.kept). A read treats an outcome past its keep-until as
  gone, so it is readable for exactly its span on the Redis clock. Storage goes in two ways, neither
  a sweep that grows: each outcome kept removes up to two whose span has ended, and both keys carry
  a TTL at least as long as the longest span in them, so once the last span ends Redis deletes
  them itself. The including script names results and kept among its keys (C.K.results, C.K.kept).
  An outcome is that of the latest run of its id: a new run (put adds or revives the task) drops
  what was kept of the one before, and a run that ends without keepResult does too, so neither
  result() nor a task put `after` it can read an earlier run's outcome as this one's. ]]
local outcomes = {}

-- Whether the queue has kept outcomes at all, read once per call and kept in the call's
-- C.outcomesKnown (nil: not read yet): a queue without them (most) pays one EXISTS per call for a
-- drop, not one HDEL per task. A caller that has read whether K.results exists says so: not read again.
function outcomes.knowOutcomes(C, known) C.outcomesKnown = known end

-- Task id starts a new run, or ends one without keepResult: an outcome kept of an earlier run goes.
function outcomes.dropOutcome(C, id)
  if C.outcomesKnown == nil then C.outcomesKnown = redis.call('EXISTS', C.K.results) == 1 end
  if not C.outcomesKnown then return end
  if redis.call('HDEL', C.K.results, id) == 1 then redis.call('ZREM', C.K.kept, id) end
end

function outcomes.keepOutcome(C, id, meta, now, state, body)
  local span = tonumber(meta.kr)
  if not span or span <= 0 then return outcomes.dropOutcome(C, id) end
  C.outcomesKnown = true
  local until_ = now + span
  redis.call('HSET', C.K.results, id, state .. '|' .. now .. '|' .. meta.n .. '|' .. until_ .. '|' .. (body or ''))
  redis.call('ZADD', C.K.kept, until_, id)
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', C.K.kept, '-inf', now, 'LIMIT', 0, 2)) do
    redis.call('ZREM', C.K.kept, old)
    redis.call('HDEL', C.K.results, old)
  end
  -- PTTL is -1 for a key without a TTL: less than any span, so it gets one.
  if redis.call('PTTL', C.K.results) < span then redis.call('PEXPIRE', C.K.results, span) end
  if redis.call('PTTL', C.K.kept) < span then redis.call('PEXPIRE', C.K.kept, span) end
end
