--[[ history: the done tasks a queue keeps (included by claim's acks; not a script itself). A task
  that finishes keeps its record and payload in the `history` HASH (K.history), not in `tasks`, so
  no identity lookup sees it: its de-dup identity is free again, as without history. Its record
  gains `f` (finished at) and `rs` (the result as the worker sent it, held as a JSON string: it
  may be sealed, lib/domain/crypto.ts, so not JSON itself) at its end, so get and list answer it
  as any record. Its id goes to the `done` ZSET (K.done) by
  finish time. Bounded by the queue's caps (keep(): the `keep` HASH, K.keep; else the defaults the
  caller passes, A.doneMaxCount and A.doneMaxAge), never by a sweep: each write removes at most two
  entries more than it adds, and both keys carry a TTL of the age, refreshed on write, so an idle
  queue's history empties itself past the age. A count of 0 keeps none (history off). ]]

-- The queue's caps on its done history: its own (keep()), else the defaults. One HMGET per call.
local function doneCaps()
  local own = redis.call('HMGET', K.keep, 'doneCount', 'doneAge')
  return tonumber(own[1]) or tonumber(A.doneMaxCount), tonumber(own[2]) or tonumber(A.doneMaxAge)
end

-- Keeps finished task id: `raw`, its `tasks` field (a record always holds `c`, so it ends in
-- '"<value>}' and the new fields go before the brace); `result`, its JSON or ''.
local function keepDone(id, raw, now, result)
  local cut = string.find(raw, '\n', 1, true)
  if not cut then return 0 end
  local fields = ',"f":' .. now
  if result ~= '' then fields = fields .. ',"rs":' .. cjson.encode(result) end
  redis.call('HSET', K.history, id, string.sub(raw, 1, cut - 2) .. fields .. '}' .. string.sub(raw, cut))
  redis.call('ZADD', K.done, now, id)
  return 1
end

-- After `added` keepDone calls: the oldest past the count, then those past the age, at most
-- added + 2 in all (an ack call adds at most its acks), and the TTLs.
local function trimDone(now, count, age, added)
  local most = added + 2
  local old = {}
  local excess = redis.call('ZCARD', K.done) - count
  if excess > 0 then old = redis.call('ZRANGE', K.done, 0, math.min(excess, most) - 1) end
  if #old < most then
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', K.done, '-inf', now - age, 'LIMIT', #old, most - #old)) do
      table.insert(old, id)
    end
  end
  if #old > 0 then
    redis.call('ZREM', K.done, unpack(old))
    redis.call('HDEL', K.history, unpack(old))
  end
  redis.call('PEXPIRE', K.done, age)
  redis.call('PEXPIRE', K.history, age)
end
