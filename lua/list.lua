#!lua flags=no-writes
--[[ list: a page of a queue's tasks in one state, in the order they will leave it, for operators.
  Ready tasks come in claim order: priority levels 9 to 1, the fair groups (by tag), normal tasks,
  then the tasks parked by their group's limit. Delayed: earliest run-at first. Waiting (on their
  dependencies, which settle in no order known ahead): the longest waiting first. Active: the
  soonest lease end first. Dead: the most recent death first. Done (the history): the most recent
  finish first, each run of a task its own row.
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, active, dead, tasks,
    levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags,
    parked, gactive, glimits, progress, blocked, after, moved, done, history
  ARGV[1] state   delayed, ready, waiting, active, dead or done
  ARGV[2] offset  how many to skip
  ARGV[3] count   most tasks to return
  ARGV[4] preview most payload bytes to return per task, cut at a UTF-8 character boundary; 0 = all
  Returns: { now, total in that state, then id, payload (or its first bytes), payload bytes,
    meta JSON, score or '', progress JSON (or its first bytes) or false for each task }: score is
    the run-at (delayed), lease end (active), died-at (dead), finished-at (done), or how many of its dependencies are
    not yet settled (waiting). A task whose payload is missing (a damaged record) has false and 0. ]]
-- include: clock, record, runs
local now = clock.now(C)
local state, skip, want = A.state, tonumber(A.offset), tonumber(A.count)
local most = tonumber(A.preview)
local picked, total = {}, 0

-- Takes up to `want` entries from one source of `size` entries after skipping `skip` in all;
-- `range(from, to)` reads a slice as { id, score, id, score, ... } (score '' where there is none).
local function pick(size, range)
  total = total + size
  if want <= 0 or skip >= size then skip = math.max(0, skip - size); return end
  local slice = range(skip, math.min(size, skip + want) - 1)
  skip = 0
  for i = 1, #slice, 2 do table.insert(picked, slice[i]); table.insert(picked, slice[i + 1]); want = want - 1 end
end
-- A slice of bare ids (no scores wanted), each through `idOf` when members are not plain ids.
-- Entries of a ready list carry its level in the score slot, for the ghost check below.
local function bare(cmd, key, idOf, level) return function(from, to)
  local out = {}
  for _, m in ipairs(redis.call(cmd, key, from, to)) do table.insert(out, idOf and idOf(m) or m); table.insert(out, level or '') end
  return out
end end
local function zset(key, reverse) return function(from, to)
  return redis.call(reverse and 'ZREVRANGE' or 'ZRANGE', key, from, to, 'WITHSCORES')
end end
-- A parked member ends with '|<id>'; task ids hold no '|'.
local function parkedId(member) return string.match(member, '([^|]*)$') end
-- The first `most` bytes of a payload, so a page of 500 KB payloads costs a few KB (the
-- dashboard refreshes every 2 s). The cut backs up past continuation bytes (0x80-0xBF), so it
-- never splits a character and the client decodes clean UTF-8.
local function head(payload)
  if most == 0 or #payload <= most then return payload end
  local cut = most
  while cut > 0 and string.byte(payload, cut + 1) >= 0x80 and string.byte(payload, cut + 1) < 0xC0 do cut = cut - 1 end
  return string.sub(payload, 1, cut)
end

if state == 'delayed' then pick(redis.call('ZCARD', K.delayed), zset(K.delayed))
elseif state == 'active' then pick(redis.call('ZCARD', K.active), zset(K.active))
elseif state == 'dead' then pick(redis.call('ZCARD', K.dead), zset(K.dead, true))
elseif state == 'done' then pick(redis.call('ZCARD', K.done), zset(K.done, true))
elseif state == 'waiting' then pick(redis.call('ZCARD', K.blocked), zset(K.blocked))
else
  for level = 9, 1, -1 do pick(redis.call('LLEN', K['ready' .. level]), bare('LRANGE', K['ready' .. level], nil, level)) end
  pick(redis.call('ZCARD', K.grouped), bare('ZRANGE', K.grouped))
  pick(redis.call('LLEN', K.ready), bare('LRANGE', K.ready, nil, 0))
  pick(redis.call('ZCARD', K.parked), bare('ZRANGE', K.parked, parkedId))
end

-- Ghosts, the entries cancels, reschedules and priority changes leave behind (include: levels),
-- are not tasks: the total leaves them out, and a page skips them as a claim would, the first
-- <ghosts of id there> entries of id in a list. (It counts from the page's start, so a page after one that held such an entry can be
-- off by it; pages are for eyes, and ghosts go with the next claims.)
local ghosts = state == 'ready' and tonumber(redis.call('HGET', K.moved, '')) or 0
local out = { now, total - ghosts }
local seen = {}
for i = 1, #picked, 2 do
  local id = picked[i]
  local raw = nil
  -- A done row is a run (include: runs): its field is its member, its id what follows the run.
  if state == 'done' then raw = redis.call('HGET', K.history, id); id = runs.rowId(id) else raw = redis.call('HGET', K.tasks, id) end
  local meta, payload = nil, nil
  if raw then meta, payload = record.split(raw) end
  local level = state == 'ready' and picked[i + 1] or ''
  if level ~= '' then picked[i + 1] = '' end
  if meta and ghosts > 0 and level ~= '' then
    local field = level .. '|' .. id
    seen[field] = (seen[field] or 0) + 1
    if seen[field] <= (tonumber(redis.call('HGET', K.moved, field)) or 0) then meta = nil end
  end
  if meta then
    table.insert(out, id); table.insert(out, payload and head(payload))
    table.insert(out, payload and #payload or 0)
    -- A waiting task's score says what it waits for: its unsettled dependencies (ids hold no
    -- '|', so '<id>|' bounds its entries), one O(log n) count each, for this page only.
    local score = picked[i + 1]
    if state == 'waiting' then score = redis.call('ZLEXCOUNT', K.after, '[' .. id .. '|', '[' .. id .. '|\255') end
    table.insert(out, meta); table.insert(out, score)
    local progress = string.find(meta, '"pg":', 1, true) and redis.call('HGET', K.progress, id)
    table.insert(out, progress and head(progress) or false)
  end
end
return out
