#!lua flags=allow-oom
--[[ claim: on the server's clock, promote due tasks, re-queue lapsed leases, trim the dead,
  drop expired tasks, and lease up to `count` ready tasks to one worker.
  KEYS[1] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[2] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[3] <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[4] <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[5] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[6] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[7] <prefix>:{<queue>}:counts   HASH  counter name -> count
  KEYS[8] <prefix>:{<queue>}:wake     LIST  wake-up tokens for idle workers (at most one)
  KEYS[9] <prefix>:{<queue>}:held     ZSET  lex index: member = worker id .. '|' .. task id, score 0
  ARGV[1] count         most tasks to lease
  ARGV[2] lease         lease length (ms)
  ARGV[3] token         random lease-token prefix; the i-th task leased gets token .. ':' .. i
  ARGV[4] worker        id of the claiming worker (host:pid:random)
  ARGV[5] deadMaxCount  dead tasks kept; the oldest beyond this are purged
  ARGV[6] deadMaxAge    ms a dead task is kept
  Returns: { now, next-due (ms) or '', then id, payload, meta JSON for each leased task } ]]
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
-- Bounds the housekeeping one call does, so a backlog never stalls Redis; the rest waits a call.
local BATCH = 100

local function load(id) return cjson.decode(redis.call('HGET', KEYS[5], id)) end
local function save(id, meta) redis.call('HSET', KEYS[5], id, cjson.encode(meta)) end
-- Priority tasks go to the head; FIFO for the rest.
local function ready(id, meta) redis.call(meta.p and 'LPUSH' or 'RPUSH', KEYS[2], id) end
local function purge(id) redis.call('HDEL', KEYS[4], id); redis.call('HDEL', KEYS[5], id) end

for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, BATCH)) do
  redis.call('ZREM', KEYS[1], id)
  ready(id, load(id))
end

-- A lapsed lease was a delivery (counted when leased): out of attempts means dead.
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, BATCH)) do
  local meta = load(id)
  redis.call('ZREM', KEYS[3], id)
  if meta.w then redis.call('ZREM', KEYS[9], meta.w .. '|' .. id) end
  meta.t, meta.l, meta.w, meta.err = nil, nil, nil, 'lease expired'
  if meta.n >= meta.m then
    redis.call('ZADD', KEYS[6], now, id)
    redis.call('HINCRBY', KEYS[7], 'dead', 1)
  else
    ready(id, meta)
  end
  save(id, meta)
end

local old = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now - tonumber(ARGV[6]), 'LIMIT', 0, BATCH)
local excess = math.min(redis.call('ZCARD', KEYS[6]) - tonumber(ARGV[5]), BATCH)
if excess > 0 then old = redis.call('ZRANGE', KEYS[6], 0, excess - 1) end
for _, id in ipairs(old) do redis.call('ZREM', KEYS[6], id); purge(id) end

local out, taken, dropped = { now, '' }, 0, 0
while taken < tonumber(ARGV[1]) and dropped < BATCH * 10 do
  local id = redis.call('LPOP', KEYS[2])
  if not id then break end
  local meta = load(id)
  if meta.e and meta.e <= now then
    -- Expired while unclaimed: dropped, and counted so it never vanishes silently.
    purge(id); dropped = dropped + 1
  else
    taken = taken + 1
    meta.n, meta.t, meta.l, meta.w = meta.n + 1, ARGV[3] .. ':' .. taken, now + tonumber(ARGV[2]), ARGV[4]
    local json = cjson.encode(meta)
    redis.call('ZADD', KEYS[3], meta.l, id)
    redis.call('ZADD', KEYS[9], 0, ARGV[4] .. '|' .. id)
    redis.call('HSET', KEYS[5], id, json)
    table.insert(out, id); table.insert(out, redis.call('HGET', KEYS[4], id)); table.insert(out, json)
  end
end
if dropped > 0 then redis.call('HINCRBY', KEYS[7], 'expired', dropped) end

-- When the worker should look again: now if ready tasks remain, else the next run-at or lease end.
local backlog = redis.call('LLEN', KEYS[2]) > 0
local d = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
local a = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2]
local due = backlog and now or math.min(tonumber(d or a or 0), tonumber(a or d or 0))
if backlog or d or a then out[2] = due end
-- This worker is now busy: hand the watch over to an idle one, which wakes and re-arms its timer.
if taken == tonumber(ARGV[1]) and (backlog or d or a) and redis.call('LLEN', KEYS[8]) == 0 then
  redis.call('RPUSH', KEYS[8], '1')
end
return out
