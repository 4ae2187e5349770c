#!lua
--[[ put: add tasks to a queue unless an identical live task is already there (de-dup).
  KEYS[1] <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[2] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[3] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[4] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[5] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[6] <prefix>:{<queue>}:counts   HASH  counter name -> count
  KEYS[7] <prefix>:{<queue>}:wake     LIST  wake-up tokens for idle workers (at most one)
  KEYS[8] <prefix>:{<queue>}:occurred HASH  recurring schedule name -> latest occurrence put (ms)
  KEYS[9] <prefix>:{<queue>}:schedules HASH recurring schedule name -> JSON definition
  KEYS[10] <prefix>:{<queue>}:levels   ZSET  priority levels whose ready lists may hold tasks, score = level
  KEYS[11] <prefix>:{<queue>}:ready1   LIST  ready task ids of priority level 1; head = next
  KEYS[12] <prefix>:{<queue>}:ready2   LIST  ready task ids of priority level 2; head = next
  KEYS[13] <prefix>:{<queue>}:ready3   LIST  ready task ids of priority level 3; head = next
  KEYS[14] <prefix>:{<queue>}:ready4   LIST  ready task ids of priority level 4; head = next
  KEYS[15] <prefix>:{<queue>}:ready5   LIST  ready task ids of priority level 5; head = next
  KEYS[16] <prefix>:{<queue>}:ready6   LIST  ready task ids of priority level 6; head = next
  KEYS[17] <prefix>:{<queue>}:ready7   LIST  ready task ids of priority level 7; head = next
  KEYS[18] <prefix>:{<queue>}:ready8   LIST  ready task ids of priority level 8; head = next
  KEYS[19] <prefix>:{<queue>}:ready9   LIST  ready task ids of priority level 9; head = next
  KEYS[20] <prefix>:{<queue>}:grouped  ZSET  ready tasks of fair groups, score = virtual start tag (round)
  KEYS[21] <prefix>:{<queue>}:gtags    HASH  group -> its latest tag; field '' -> the round claims have reached
  KEYS[22] <prefix>:{<queue>}:parked   ZSET  lex: '<group>|<order>|<id>' ready tasks held back by their group's limit, score 0
  KEYS[23] <prefix>:{<queue>}:gactive  HASH  group -> its active tasks
  KEYS[24] <prefix>:{<queue>}:glimits  HASH  group -> most active tasks; field '' -> the limit of every other group
  KEYS[25] <prefix>:{<queue>}:events   STREAM outcomes (here: deduplicated puts), capped by length
  KEYS[26] <prefix>:{<queue>}:progress HASH  task id -> JSON progress its handler reported
  ARGV[1] count         number of tasks in this call; then 3 slots per task, starting at ARGV[5]
  ARGV[2] maxAttempts   deliveries before a task goes dead, for tasks whose options are ''
  ARGV[3] schedule      '' for plain puts; else the name of the recurring schedule whose
                        occurrences these tasks are (each with an `at`): an occurrence at or before
                        the schedule's latest one put is skipped, so each is put once, ever; and
                        none is put once the schedule is gone (unschedule)
  ARGV[4] events        most entries kept in the events stream; 0 for no events
  ARGV[+1] id           identity hash (hex); a collision probes id-1, id-2, ...
  ARGV[+2] payload      canonical JSON payload
  ARGV[+3] options      '' for the defaults (due now, normal priority, no expiry, de-dup on the
                        payload), else 'delay|at|priority|expire|maxAttempts|group|trace|keep|key':
                        delay in ms after the server's now or '' when at (epoch ms) is given;
                        priority the level 0-9; group '' for none; expire in ms after run-at, or '';
                        trace the producer's encoded trace context, kept for claim, or '';
                        keep how long (ms) the outcome is kept once the task finishes, or '';
                        key '' to de-dup on the payload
  Returns: { id, code, run-at, ... } three entries per task, in call order; code 1 added, 2 a dead
    task revived by this put, 0 a duplicate of a live task; a skipped occurrence answers
    { '', 0, run-at }, or { '', -1, run-at } when the schedule is gone ]]
local READY, LEVELS, EVENTS, PROGRESS = 4, 10, 25, 26
-- include: levels
-- include: events
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local count = tonumber(ARGV[1])
local out, wake, dups, added = {}, false, 0, 0
local cap = tonumber(ARGV[4])
-- Writes are gathered and made at the end, a few variadic calls per chunk instead of several per
-- task. `pending` holds what this call is about to write, so a duplicate within the call is found.
local data, metas, delayed, pending = {}, {}, {}, {}
-- Ready ids by priority level (0-9), each pushed at its list's tail: FIFO within a level.
local queued = {}
for level = 0, 9 do queued[level] = {} end
-- Grouped ready tasks (tag, id pairs) and the lanes whose latest tag they moved.
local grouped, lanes = {}, {}

-- Slices hold 1000 values, an even number, so field-value and score-member pairs stay whole.
local function many(cmd, key, list)
  for i = 1, #list, 1000 do redis.call(cmd, key, unpack(list, i, math.min(i + 999, #list))) end
end

-- The record holding this identity and its metadata (nil when none); `raw` is the stored meta of
-- the first candidate, already fetched.
local function find(base, payload, key, raw)
  local n = 0
  while true do
    local id = n == 0 and base or (base .. '-' .. n)
    local p = pending[id]
    if n > 0 then raw = redis.call('HGET', KEYS[2], id) end
    if not p and not raw then return id, nil end
    local meta = p and p.meta or cjson.decode(raw)
    local stored = p and p.payload or (meta.k == nil and redis.call('HGET', KEYS[1], id))
    -- Same hash is not same task: compare the identity itself, so a collision is stored apart.
    if (key ~= '' and meta.k == key) or (key == '' and meta.k == nil and stored == payload) then return id, meta end
    n = n + 1
  end
end

local schedule = ARGV[3]
if schedule ~= '' and redis.call('HEXISTS', KEYS[9], schedule) == 0 then
  for i = 1, count do
    local a = string.match(ARGV[3 * i + 4], '^[^|]*|([^|]*)|')
    table.insert(out, ''); table.insert(out, -1); table.insert(out, tonumber(a))
  end
  return out
end
local latest = schedule ~= '' and tonumber(redis.call('HGET', KEYS[8], schedule)) or nil
local bases = {}
for i = 1, count do bases[i] = ARGV[3 * i + 2] end
local stored = redis.call('HMGET', KEYS[2], unpack(bases))
-- A new earliest run-at means an idle worker must re-arm its timer.
local earliest = tonumber(redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2])

for i = 1, count do
  local payload, options = ARGV[3 * i + 3], ARGV[3 * i + 4]
  local delay, at, level, expire, attempts, group, trace, keep, key = 0, nil, 0, nil, tonumber(ARGV[2]), '', '', nil, ''
  if options ~= '' then
    local d, a, p, x, m, g, tr, kr, k = string.match(options, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
    delay, at, level, expire, attempts, group, trace, keep, key = tonumber(d), tonumber(a), tonumber(p), tonumber(x), tonumber(m), g, tr, tonumber(kr), k
  end
  -- Every process that declares a schedule puts its occurrences; the first put of each wins.
  local skip = schedule ~= '' and latest and at <= latest
  if schedule ~= '' and not skip then latest = at end
  local id, old = bases[i], nil
  if skip then
    table.insert(out, ''); table.insert(out, 0); table.insert(out, at)
  else
    if stored[i] or pending[id] then id, old = find(id, payload, key, stored[i]) end
    local dead = old and not pending[id] and redis.call('ZREM', KEYS[5], id) == 1
    if old and not dead then
      -- A live duplicate: a result, not an error.
      dups = dups + 1
      emit(cap, 'type', 'deduplicated', 'id', id)
      table.insert(out, id); table.insert(out, 0); table.insert(out, old.r)
    else
      -- New, or a dead task revived by putting it again.
      local runAt = at or now + delay
      local meta = { r = runAt, m = attempts, n = 0, c = now }
      if level > 0 then meta.p = level end
      if group ~= '' then meta.g = group end
      if key ~= '' then meta.k = key end
      if trace ~= '' then meta.tp = trace end
      if keep then meta.kr = keep end
      -- A revived task starts afresh: the progress of its earlier life goes.
      if dead and old.pg then redis.call('HDEL', KEYS[PROGRESS], id) end
      if expire then meta.x = expire; meta.e = runAt + expire end
      added = added + 1
      pending[id] = { meta = meta, payload = key == '' and payload or nil }
      table.insert(data, id); table.insert(data, payload)
      table.insert(metas, id); table.insert(metas, cjson.encode(meta))
      if runAt <= now then
        if meta.g then
          table.insert(grouped, tagOf(meta)); table.insert(grouped, id)
          lanes[laneOf(meta)] = true
        else
          table.insert(queued[level], id)
        end
        wake = true
      else
        table.insert(delayed, runAt); table.insert(delayed, id)
        if not earliest or runAt < earliest then earliest, wake = runAt, true end
      end
      table.insert(out, id); table.insert(out, dead and 2 or 1); table.insert(out, runAt)
    end
  end
end
if schedule ~= '' and latest then redis.call('HSET', KEYS[8], schedule, latest) end
many('HSET', KEYS[1], data)
many('HSET', KEYS[2], metas)
many('RPUSH', KEYS[READY], queued[0])
if #grouped > 0 then
  many('ZADD', KEYS[GROUPED], grouped)
  local latest = {}
  for lane in pairs(lanes) do table.insert(latest, lane); table.insert(latest, tagged.lanes[lane]) end
  many('HSET', KEYS[GTAGS], latest)
  redis.call('ZADD', KEYS[LEVELS], 0.5, 'g')
end
for level = 1, 9 do
  if #queued[level] > 0 then
    many('RPUSH', KEYS[LEVELS + level], queued[level])
    redis.call('ZADD', KEYS[LEVELS], level, level)
  end
end
many('ZADD', KEYS[3], delayed)
if dups > 0 then redis.call('HINCRBY', KEYS[6], 'deduplicated', dups) end
if added > 0 then redis.call('HINCRBY', KEYS[6], 'added', added) end
if wake and redis.call('LLEN', KEYS[7]) == 0 then redis.call('RPUSH', KEYS[7], '1') end
return out
