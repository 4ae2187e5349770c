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
-- include: clock, record, runs, page
local now = clock.now(C)
local state = A.state
local most = tonumber(A.preview)
page.start(C, tonumber(A.offset), tonumber(A.count))

local ZSETS = { delayed = { K.delayed }, active = { K.active }, dead = { K.dead, true }, done = { K.done, true }, waiting = { K.blocked } }
local zset = ZSETS[state]
if zset then page.pick(C, redis.call('ZCARD', zset[1]), zset[1], { reverse = zset[2] })
else
  -- Entries of a ready list carry its level in the score slot, for the ghost check below.
  for level = 9, 1, -1 do page.pick(C, redis.call('LLEN', K['ready' .. level]), K['ready' .. level], { cmd = 'LRANGE', level = level }) end
  page.pick(C, redis.call('ZCARD', K.grouped), K.grouped, { cmd = 'ZRANGE' })
  page.pick(C, redis.call('LLEN', K.ready), K.ready, { cmd = 'LRANGE', level = 0 })
  page.pick(C, redis.call('ZCARD', K.parked), K.parked, { cmd = 'ZRANGE', parked = true })
end
local picked, total = C.page.picked, C.page.total

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
    table.insert(out, id); table.insert(out, payload and page.head(most, payload))
    table.insert(out, payload and #payload or 0)
    -- A waiting task's score says what it waits for: its unsettled dependencies (ids hold no
    -- '|', so '<id>|' bounds its entries), one O(log n) count each, for this page only.
    local score = picked[i + 1]
    if state == 'waiting' then score = redis.call('ZLEXCOUNT', K.after, '[' .. id .. '|', '[' .. id .. '|\255') end
    table.insert(out, meta); table.insert(out, score)
    local progress = string.find(meta, '"pg":', 1, true) and redis.call('HGET', K.progress, id)
    table.insert(out, progress and page.head(most, progress) or false)
  end
end
return out
