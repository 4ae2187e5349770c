#!lua flags=allow-oom
--[[ clean: delete one batch of a queue's ready, delayed or dead tasks, read from one source: the
  caller (lib/clean.ts) walks the sources of a state and calls again from the cursor returned, so
  no call examines more than `scan` entries or deletes more than `most` tasks. A claimed task is
  in `active`, in no source, so a clean never deletes it. A pending task goes as cancel deletes
  it: out of its list (a ready list, grouped, parked or delayed), its identity pointer, its
  record, progress and deplist, and the tasks waiting on it learn it was 'cancelled' (event and
  kept outcome as cancel's). A dead task goes as purge deletes it.
  KEYS[1]  <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[2]  <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[3]  <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[4]  <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[5]  <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[6]  <prefix>:{<queue>}:levels   ZSET  priority levels whose ready lists may hold tasks, score = level
  KEYS[7]  <prefix>:{<queue>}:ready1   LIST  ready task ids of priority level 1; head = next
  KEYS[8]  <prefix>:{<queue>}:ready2   LIST  ready task ids of priority level 2; head = next
  KEYS[9]  <prefix>:{<queue>}:ready3   LIST  ready task ids of priority level 3; head = next
  KEYS[10] <prefix>:{<queue>}:ready4   LIST  ready task ids of priority level 4; head = next
  KEYS[11] <prefix>:{<queue>}:ready5   LIST  ready task ids of priority level 5; head = next
  KEYS[12] <prefix>:{<queue>}:ready6   LIST  ready task ids of priority level 6; head = next
  KEYS[13] <prefix>:{<queue>}:ready7   LIST  ready task ids of priority level 7; head = next
  KEYS[14] <prefix>:{<queue>}:ready8   LIST  ready task ids of priority level 8; head = next
  KEYS[15] <prefix>:{<queue>}:ready9   LIST  ready task ids of priority level 9; head = next
  KEYS[16] <prefix>:{<queue>}:grouped  ZSET  ready tasks of fair groups, score = virtual start tag (round)
  KEYS[17] <prefix>:{<queue>}:gtags    HASH  group -> its latest tag; field '' -> the round claims have reached
  KEYS[18] <prefix>:{<queue>}:parked   ZSET  lex: '<group>|<order>|<id>' ready tasks held back by their group's limit, score 0
  KEYS[19] <prefix>:{<queue>}:gactive  HASH  group -> its active tasks
  KEYS[20] <prefix>:{<queue>}:glimits  HASH  group -> most active tasks; field '' -> the limit of every other group
  KEYS[21] <prefix>:{<queue>}:events   STREAM outcomes (here: cancelled), capped by length
  KEYS[22] <prefix>:{<queue>}:results  HASH  task id -> kept outcome of a finished task (include: outcomes)
  KEYS[23] <prefix>:{<queue>}:kept     ZSET  member = task id, score = when its kept outcome goes (ms)
  KEYS[24] <prefix>:{<queue>}:progress HASH  task id -> JSON progress its handler reported
  KEYS[25] <prefix>:{<queue>}:waiting  HASH  base id -> id of its until-start identity's waiting task (include: identity)
  KEYS[26] <prefix>:{<queue>}:counts   HASH  counter name -> count
  KEYS[27] <prefix>:{<queue>}:wake     LIST  wake-up tokens for idle workers (at most one)
  KEYS[28] <prefix>:{<queue>}:blocked  ZSET  member = task id waiting on its dependencies, score = when put (ms) (include: deps)
  KEYS[29] <prefix>:{<queue>}:after    ZSET  lex: '<id>|<ref>|<ref queue>' dependencies not yet settled, score 0
  KEYS[30] <prefix>:{<queue>}:dependents ZSET lex: '<ref>|<id>|<queue>' tasks waiting on task ref of this queue, score 0
  KEYS[31] <prefix>:{<queue>}:deplist  HASH  task id -> JSON [[queue, hash], ...] the tasks it was put after
  KEYS[32] <prefix>:{<queue>}:settle   LIST  JSON steps of dependency work for this queue, taken by claims
  KEYS[33] <prefix>:{<queue>}:outbox   ZSET  JSON steps for other queues, score = when due (ms); carried by clients
  KEYS[34] <prefix>:{<queue>}:logs     HASH  task id -> its log lines, '<at ms> <JSON string>\n' each, oldest first
  KEYS[35] <prefix>:{<queue>}:moved    HASH  '<level>|<id>' -> ghost entries of id left in that level's ready list; '' -> all (include: levels)
  ARGV[1] source  where to read: dead, delayed, ready, ready1 to ready9, grouped or parked
  ARGV[2] before  only tasks put (dead ones: died) at or before this time (epoch ms); -1 for all
  ARGV[3] most    most tasks to delete in this call
  ARGV[4] scan    most entries to examine in this call
  ARGV[5] cursor  where the previous call in this source stopped; '' to start
  ARGV[6] events  most entries kept in the events stream; 0 for no events
  Returns: { deleted, 1 when the source is done else 0, next cursor, 1 when steps for other
    queues were made (for the caller to carry) else 0 } ]]
local DELAYED, READY, DATA, META, DEAD, LEVELS = 1, 2, 3, 4, 5, 6
local EVENTS, RESULTS, KEPT, PROGRESS, WAITING, COUNTS, WAKE = 21, 22, 23, 24, 25, 26, 27
local BLOCKED, AFTER, DEPENDENTS, DEPLIST, SETTLE, OUTBOX = 28, 29, 30, 31, 32, 33
local LOGS, MOVED = 34, 35
-- include: levels
-- include: events
-- include: outcomes
-- include: identity
-- include: deps
local source, before, most, scan, cursor, cap = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local deleted = 0
-- What a cleaned list entry becomes until one LREM takes them all: task ids hold no '|'.
local TOMB = '|cleaned|'

-- Dead tasks, oldest death first: every one read goes, so no cursor is needed (purge's deletion,
-- a few variadic commands per slice instead of five per task).
if source == 'dead' then
  local ids = redis.call('ZRANGEBYSCORE', KEYS[DEAD], '-inf', before < 0 and '+inf' or ARGV[2], 'LIMIT', 0, most)
  for i = 1, #ids, SLICE do
    local part = { unpack(ids, i, math.min(i + SLICE - 1, #ids)) }
    redis.call('ZREM', KEYS[DEAD], unpack(part))
    for _, key in ipairs({ KEYS[DATA], KEYS[META], KEYS[PROGRESS], KEYS[DEPLIST], KEYS[LOGS] }) do redis.call('HDEL', key, unpack(part)) end
  end
  return { #ids, #ids < most and 1 or 0, '', 0 }
end

-- The task's meta when it is to go: it has a record, put at or before `before`.
local function doomed(id)
  local raw = redis.call('HGET', KEYS[META], id)
  if not raw then return nil end
  local meta = cjson.decode(raw)
  if before >= 0 and (meta.c or 0) > before then return nil end
  return meta
end

-- A pending task, already out of its list, ends as cancel ends it.
local function drop(id, meta)
  unpoint(id, meta)
  fire(id, meta, 'cancelled', now)
  if meta.n > 0 then emitFor(cap, meta, 'type', 'cancelled', 'id', id, 'attempt', meta.n) else emitFor(cap, meta, 'type', 'cancelled', 'id', id) end
  keepOutcome(id, meta, now, 'cancelled')
  redis.call('HDEL', KEYS[DATA], id)
  redis.call('HDEL', KEYS[META], id)
  if meta.pg then redis.call('HDEL', KEYS[PROGRESS], id) end
  if meta.lg then redis.call('HDEL', KEYS[LOGS], id) end
  if meta.dl then redis.call('HDEL', KEYS[DEPLIST], id) end
  deleted = deleted + 1
end

-- Walks `entries` (flat, `step` values per entry) until `most` are deleted; `take(i)` deletes
-- entry i when it is to go and says whether it did. Returns how many were examined.
local function walk(entries, step, take)
  local n = 0
  for i = 1, #entries, step do
    if deleted >= most then break end
    n = n + 1
    take(i)
  end
  return n
end

local done, nextCursor
if source == 'delayed' or source == 'grouped' then
  -- By score; the cursor is '<score>|<kept entries at that score>', so entries that leave
  -- meanwhile (claims promote due tasks) do not shift it.
  local key = source == 'delayed' and KEYS[DELAYED] or KEYS[GROUPED]
  local score, skip = string.match(cursor, '^(.*)|(%d+)$')
  local start = score and redis.call('ZCOUNT', key, '-inf', '(' .. score) + tonumber(skip) or 0
  local entries = redis.call('ZRANGE', key, start, start + scan - 1, 'WITHSCORES')
  local last, kept = score, tonumber(skip) or 0
  local n = walk(entries, 2, function(i)
    if entries[i + 1] ~= last then last, kept = entries[i + 1], 0 end
    local id = entries[i]
    local meta = doomed(id)
    if not meta then kept = kept + 1; return end
    redis.call('ZREM', key, id)
    -- As cancel: a grouped task leaving unclaimed lets its group's first parked task in.
    if source == 'grouped' then refill(meta.g) end
    drop(id, meta)
  end)
  done, nextCursor = n == #entries / 2 and n < scan, last and (last .. '|' .. kept) or ''
elseif source == 'parked' then
  local members = redis.call('ZRANGEBYLEX', KEYS[PARKED], cursor == '' and '-' or '(' .. cursor, '+', 'LIMIT', 0, scan)
  local last = cursor
  local n = walk(members, 1, function(i)
    last = members[i]
    local id = string.match(last, '|([^|]*)$')
    local meta = doomed(id)
    if meta then redis.call('ZREM', KEYS[PARKED], last); drop(id, meta) end
  end)
  done, nextCursor = n == #members and n < scan, last
else
  -- A ready list: entries to go are overwritten in place and removed by one LREM from the head,
  -- which stops at the last of them, so the list keeps its order and no entry costs an LREM.
  local level = tonumber(string.match(source, '^ready(%d)$'))
  local key = level and KEYS[LEVELS + level] or KEYS[READY]
  local start = tonumber(cursor) or 0
  local ids = redis.call('LRANGE', key, start, start + scan - 1)
  local marked = 0
  -- An entry a priority change left behind goes as any cleaned entry does, but its task (ready
  -- under its new level, or active, or gone) is not this entry's to delete (include: levels).
  local ghosts = redis.call('EXISTS', KEYS[MOVED]) == 1
  local n = walk(ids, 1, function(i)
    if ghosts and unghost(KEYS[MOVED], level or 0, ids[i]) then
      redis.call('LSET', key, start + i - 1, TOMB)
      marked = marked + 1
      return
    end
    local meta = doomed(ids[i])
    if not meta then return end
    redis.call('LSET', key, start + i - 1, TOMB)
    marked = marked + 1
    drop(ids[i], meta)
  end)
  if marked > 0 then redis.call('LREM', key, marked, TOMB) end
  done, nextCursor = n == #ids and n < scan, tostring(start + n - marked)
end

if stepped then
  -- The tasks that waited on them learn now (a batch; claims take the rest).
  drain(100, now, cap)
  if redis.call('LLEN', KEYS[WAKE]) == 0 then redis.call('RPUSH', KEYS[WAKE], '1') end
end
return { deleted, done and 1 or 0, nextCursor, outboxed and 1 or 0 }
