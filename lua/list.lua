#!lua flags=no-writes
--[[ list: a page of a queue's tasks in one state, in the order they will leave it, for operators.
  Ready tasks come in claim order: priority levels 9 to 1, the fair groups (by tag), normal tasks,
  then the tasks parked by their group's limit. Delayed: earliest run-at first. Waiting (on their
  dependencies, which settle in no order known ahead): the longest waiting first. Active: the
  soonest lease end first. Dead: the most recent death first.
  KEYS[1]  <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[2]  <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[3]  <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[4]  <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[5]  <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[6]  <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[7]  <prefix>:{<queue>}:levels   ZSET  priority levels whose ready lists may hold tasks, score = level
  KEYS[8]  <prefix>:{<queue>}:ready1   LIST  ready task ids of priority level 1; head = next
  KEYS[9]  <prefix>:{<queue>}:ready2   LIST  ready task ids of priority level 2; head = next
  KEYS[10] <prefix>:{<queue>}:ready3   LIST  ready task ids of priority level 3; head = next
  KEYS[11] <prefix>:{<queue>}:ready4   LIST  ready task ids of priority level 4; head = next
  KEYS[12] <prefix>:{<queue>}:ready5   LIST  ready task ids of priority level 5; head = next
  KEYS[13] <prefix>:{<queue>}:ready6   LIST  ready task ids of priority level 6; head = next
  KEYS[14] <prefix>:{<queue>}:ready7   LIST  ready task ids of priority level 7; head = next
  KEYS[15] <prefix>:{<queue>}:ready8   LIST  ready task ids of priority level 8; head = next
  KEYS[16] <prefix>:{<queue>}:ready9   LIST  ready task ids of priority level 9; head = next
  KEYS[17] <prefix>:{<queue>}:grouped  ZSET  ready tasks of fair groups, score = virtual start tag (round)
  KEYS[18] <prefix>:{<queue>}:gtags    HASH  group -> its latest tag; field '' -> the round claims have reached
  KEYS[19] <prefix>:{<queue>}:parked   ZSET  lex: '<group>|<order>|<id>' ready tasks held back by their group's limit, score 0
  KEYS[20] <prefix>:{<queue>}:gactive  HASH  group -> its active tasks
  KEYS[21] <prefix>:{<queue>}:glimits  HASH  group -> most active tasks; field '' -> the limit of every other group
  KEYS[22] <prefix>:{<queue>}:progress HASH  task id -> JSON progress its handler reported
  KEYS[23] <prefix>:{<queue>}:blocked  ZSET  member = task id waiting on its dependencies, score = when put (ms) (include: deps)
  KEYS[24] <prefix>:{<queue>}:after    ZSET  lex: '<id>|<ref>|<ref queue>' dependencies not yet settled, score 0
  KEYS[25] <prefix>:{<queue>}:moved    HASH  '<level>|<id>' -> ghost entries of id left in that level's ready list; '' -> all (include: levels)
  ARGV[1] state   delayed, ready, waiting, active or dead
  ARGV[2] offset  how many to skip
  ARGV[3] limit   most tasks to return
  ARGV[4] preview most payload bytes to return per task, cut at a UTF-8 character boundary; 0 = all
  Returns: { now, total in that state, then id, payload (or its first bytes), payload bytes,
    meta JSON, score or '', progress JSON (or its first bytes) or false for each task }: score is
    the run-at (delayed), lease end (active), died-at (dead), or how many of its dependencies are
    not yet settled (waiting). A task whose payload is missing (a damaged record) has false and 0. ]]
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local state, skip, want = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local most = tonumber(ARGV[4])
local picked, total = {}, 0

-- Takes up to `want` entries from one source of `size` entries after skipping `skip` in all;
-- `range(from, to)` reads a slice as { id, score, id, score, ... } (score '' where there is none).
local function take(size, range)
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

if state == 'delayed' then take(redis.call('ZCARD', KEYS[1]), zset(KEYS[1]))
elseif state == 'active' then take(redis.call('ZCARD', KEYS[3]), zset(KEYS[3]))
elseif state == 'dead' then take(redis.call('ZCARD', KEYS[4]), zset(KEYS[4], true))
elseif state == 'waiting' then take(redis.call('ZCARD', KEYS[23]), zset(KEYS[23]))
else
  for level = 9, 1, -1 do take(redis.call('LLEN', KEYS[7 + level]), bare('LRANGE', KEYS[7 + level], nil, level)) end
  take(redis.call('ZCARD', KEYS[17]), bare('ZRANGE', KEYS[17]))
  take(redis.call('LLEN', KEYS[2]), bare('LRANGE', KEYS[2], nil, 0))
  take(redis.call('ZCARD', KEYS[19]), bare('ZRANGE', KEYS[19], parkedId))
end

-- Ghosts, the entries cancels, reschedules and priority changes leave behind (include: levels),
-- are not tasks: the total leaves them out, and a page skips them as a claim would, the first
-- <ghosts of id there> entries of id in a list. (It counts from the page's start, so a page after one that held such an entry can be
-- off by it; pages are for eyes, and ghosts go with the next claims.)
local ghosts = state == 'ready' and tonumber(redis.call('HGET', KEYS[25], '')) or 0
local out = { now, total - ghosts }
local seen = {}
for i = 1, #picked, 2 do
  local id = picked[i]
  local meta = redis.call('HGET', KEYS[6], id)
  local level = state == 'ready' and picked[i + 1] or ''
  if level ~= '' then picked[i + 1] = '' end
  if meta and ghosts > 0 and level ~= '' then
    local field = level .. '|' .. id
    seen[field] = (seen[field] or 0) + 1
    if seen[field] <= (tonumber(redis.call('HGET', KEYS[25], field)) or 0) then meta = nil end
  end
  if meta then
    local payload = redis.call('HGET', KEYS[5], id)
    table.insert(out, id); table.insert(out, payload and head(payload))
    table.insert(out, payload and #payload or 0)
    -- A waiting task's score says what it waits for: its unsettled dependencies (ids hold no
    -- '|', so '<id>|' bounds its entries), one O(log n) count each, for this page only.
    local score = picked[i + 1]
    if state == 'waiting' then score = redis.call('ZLEXCOUNT', KEYS[24], '[' .. id .. '|', '[' .. id .. '|\255') end
    table.insert(out, meta); table.insert(out, score)
    local progress = string.find(meta, '"pg":', 1, true) and redis.call('HGET', KEYS[22], id)
    table.insert(out, progress and head(progress) or false)
  end
end
return out
