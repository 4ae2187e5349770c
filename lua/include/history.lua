--[[ history: the done tasks a queue keeps (included by claim's acks and lease step; not a script
  itself). A finished task's record and payload go to the `history` HASH (C.K.history), not `tasks`,
  so no identity lookup sees it: its de-dup identity is free again. Its record gains `f` (finished
  at) and `rs` (the result as the worker sent it, a JSON string: it may be sealed,
  lib/domain/crypto.ts), so get and list answer it as any record. Each run is a row of its own, in
  finish order (include: runs). Bounded by the queue's caps (keep(): C.K.keep; else C.A.doneMaxCount and
  C.A.doneMaxAge), never by a sweep: each write removes at most two rows more than it adds, and both
  keys carry a TTL of the age, refreshed on write, so an idle queue's history empties itself. A
  count of 0 keeps none (history off). A task put with `keep` (its record's `kp`: dc, da) has caps
  of its own (a cap it leaves out is the queue's: BullMQ's removeOnComplete). A kept run that logged
  keeps its log's newest whole entries, up to LOG_KEPT bytes, in its row's field plus '|log', in a
  chunk's format (include: logs), removed with its row (trim, TTL). ]]
-- include: logs, runs
local history = {}

-- The most bytes of a done task's log the history keeps: its newest whole entries.
local LOG_KEPT = 65536

-- The newest whole entries of task id's log that fit LOG_KEPT, as one string ('' for none): its
-- last chunks read back to front (a log 0.1 stored: its one field), at most LOG_KEPT bytes and one
-- chunk more, so the read is bounded whatever the log's caps.
function history.newestLog(C, id)
  local head = redis.call('HGET', C.K.logs, id)
  if not head then return '' end
  local first, offset, last = logs.logHead(head)
  local parts, size = { head }, #head
  if first then
    parts, size = {}, 0
    for n = last, first, -1 do
      local chunk = redis.call('HGET', C.K.logs, logs.chunkField(id, n))
      if chunk then
        if n == first then chunk = string.sub(chunk, offset + 1) end
        table.insert(parts, 1, chunk)
        size = size + #chunk
      end
      if size >= LOG_KEPT then break end
    end
  end
  local text = table.concat(parts)
  if #text <= LOG_KEPT then return text end
  -- Cut after the newline that ends the last entry too old to fit: whole entries only.
  local nl = string.find(text, '\n', #text - LOG_KEPT, true)
  if not nl or nl == #text then return '' end
  return string.sub(text, nl + 1)
end

-- The queue's caps on its done history: its own (keep()), else the defaults; read once a call (C.capsRead).
function history.doneCaps(C)
  C.capsRead = C.capsRead or redis.call('HMGET', C.K.keep, 'doneCount', 'doneAge')
  local capsRead = C.capsRead
  return tonumber(capsRead[1]) or tonumber(C.A.doneMaxCount), tonumber(capsRead[2]) or tonumber(C.A.doneMaxAge)
end

-- Keeps this run of finished task id as a row of its own (include: runs), its id's latest: `raw`,
-- its `tasks` field (new fields go before the record's closing brace; a bare creation time, include
-- record, is made an object first); `result`, its JSON or ''; `meta`, its record (meta.lg: it
-- logged, and its newest entries are kept with it); `run`, its run number (include: runs).
function history.keepDone(C, id, raw, now, result, meta, run)
  local cut = string.find(raw, '\n', 1, true)
  if not cut then return 0 end
  local fields = ',"f":' .. now .. (result ~= '' and ',"rs":' .. cjson.encode(result) or '')
  local head = string.byte(raw, 1) == 123 and string.sub(raw, 1, cut - 2) or '{"c":' .. string.sub(raw, 1, cut - 1)
  local row = run .. '|' .. id
  redis.call('HSET', C.K.history, row, head .. fields .. '}' .. string.sub(raw, cut), id, run)
  redis.call('ZADD', C.K.done, now, row)
  if meta.lg then
    local log = history.newestLog(C, id)
    if log ~= '' then redis.call('HSET', C.K.history, row .. '|log', log) end
  end
  return 1
end

-- The caps a task's finish (`meta`, its record) is kept and trimmed by, and whether its own (put's
-- `keep`), else the queue's. Own caps without a count, history off, take C.A.doneMaxCount's.
function history.capsFor(C, meta, count, age)
  local own = meta.kp
  if not own or (own.dc == nil and own.da == nil) then return count, age, false end
  if count == 0 then count = tonumber(C.A.doneMaxCount) end
  return tonumber(own.dc) or count, tonumber(own.da) or age, true
end

-- Notes in `trims` (one entry per distinct caps, in first-seen order) a task kept with these caps.
function history.noteKept(trims, count, age, own)
  local key = count .. '|' .. age
  local t = trims[key]
  if not t then
    t = { count = count, age = age, own = own, added = 0 }
    trims[key] = t
    table.insert(trims, t)
  end
  t.added = t.added + 1
end

-- After `added` keepDone calls: the oldest past the count, then those past the age, at most
-- added + 2 in all (an ack call adds at most its acks), and the TTLs. A task's own caps (`own`)
-- never shorten the keys' TTL: the queue's age sets it, an own longer age extends it.
function history.trimDone(C, now, count, age, added, own)
  local most = added + 2
  local old = {}
  local excess = redis.call('ZCARD', C.K.done) - count
  if excess > 0 then old = redis.call('ZRANGE', C.K.done, 0, math.min(excess, most) - 1) end
  if #old < most then
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', C.K.done, '-inf', now - age, 'LIMIT', #old, most - #old)) do
      table.insert(old, id)
    end
  end
  if #old > 0 then
    redis.call('ZREM', C.K.done, unpack(old))
    runs.dropRows(C, old)
  end
  if own and redis.call('PTTL', C.K.done) >= age then return end
  redis.call('PEXPIRE', C.K.done, age)
  redis.call('PEXPIRE', C.K.history, age)
end

-- The trims `trims` noted, each caps' once (the queue's and the tasks' own: a few per call at most).
function history.trimAll(C, now, trims)
  for _, t in ipairs(trims) do history.trimDone(C, now, t.count, t.age, t.added, t.own) end
end
