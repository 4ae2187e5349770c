--[[ alive: included by beat and claim (not a script itself). Which workers are alive, on the
  server's clock: `workers` holds every work() worker with its heartbeat deadline (listed by
  `docket workers` and the dashboard); `busy` holds those of them that hold leases, with the same
  deadline. A busy worker beats every interval; an idle one (no task) does not beat at all: each
  claim it sends renews its entry, for as long as its idle wait can last. A worker past its
  deadline crashed or hangs: sweep lapses its leases at once, so its tasks are re-delivered within
  about the deadline instead of after their full lease. Only a busy worker's deadline can matter
  to anyone, so an idle worker's claim learns the earliest other one (watch) and wakes then. ]]
-- include: wake
local alive = {}

-- Renews `worker`'s entry until now + ttl: in `busy` too while it holds leases (busy), else out of it.
function alive.renew(C, worker, now, ttl, busy)
  redis.call('ZADD', C.K.workers, now + ttl, worker)
  if busy then redis.call('ZADD', C.K.busy, now + ttl, worker) else redis.call('ZREM', C.K.busy, worker) end
end

-- Takes `worker` out of both sets (it closed).
function alive.leave(C, worker)
  redis.call('ZREM', C.K.workers, worker)
  redis.call('ZREM', C.K.busy, worker)
end

-- Lapses the leases of up to 10 workers whose heartbeat ran out, and drops them. A deadline of now
-- makes a lease lapsed: the next claim re-queues it (or makes it dead, or ends it cancelled when it
-- was cancelled while it ran: include: upkeep), and writes the `lapsed` event then. Returns how
-- many leases were lapsed.
function alive.sweep(C, now)
  local lapsed = 0
  local gone = redis.call('ZRANGEBYSCORE', C.K.workers, '-inf', now, 'LIMIT', 0, 10)
  -- (A busy entry outlives its `workers` one only if a client wrote one alone: swept all the same.)
  for _, w in ipairs(redis.call('ZRANGEBYSCORE', C.K.busy, '-inf', now, 'LIMIT', 0, 10)) do table.insert(gone, w) end
  for _, w in ipairs(gone) do
    -- Every member that starts with "<w>|": '}' is the character after '|'.
    for _, m in ipairs(redis.call('ZRANGEBYLEX', C.K.held, '[' .. w .. '|', '(' .. w .. '}')) do
      lapsed = lapsed + redis.call('ZADD', C.K.active, 'XX', 'CH', now, string.sub(m, #w + 2))
    end
    -- The marks of its cancelled tasks: their lapsed leases end them now.
    redis.call('ZREMRANGEBYLEX', C.K.cancels, '[' .. w .. '|', '(' .. w .. '}')
    alive.leave(C, w)
  end
  return lapsed
end

-- The earliest heartbeat deadline of a busy worker other than `worker`, or nil: when an idle worker
-- should look whether it died.
function alive.watch(C, worker)
  local first = redis.call('ZRANGE', C.K.busy, 0, 1, 'WITHSCORES')
  if first[1] and first[1] ~= worker then return tonumber(first[2]) end
  if first[3] then return tonumber(first[4]) end
  return nil
end


-- At the end of a claim: an idle worker's claim (ARGV beat > 0; a busy worker's beats do this)
-- renews it, as busy when it leased tasks or still runs some (holding), else as idle for as long as
-- its next wait can last (rest); says whether the queue has stored schedules (out[5]); and returns
-- `due` brought forward to the earliest deadline of another busy worker, for an idle one to look
-- then whether that one died.
function alive.claimed(C, now, out, taken, due)
  local beat = tonumber(C.A.beat)
  if beat == 0 then return due end
  local busy = taken > 0 or C.A.holding == '1'
  alive.renew(C, C.A.worker, now, busy and beat or tonumber(C.A.rest), busy)
  out[5] = redis.call('EXISTS', C.K.schedules)
  if busy then
    -- It turned busy: an idle worker is woken to learn of it, so that one looks if it dies.
    if taken > 0 and C.A.holding == '0' and redis.call('ZCARD', C.K.workers) > redis.call('ZCARD', C.K.busy) then wake.wakeIdle(C) end
    return due
  end
  local watch = alive.watch(C, C.A.worker)
  if watch and (not due or watch < due) then return watch end
  return due
end
