#!lua
--[[ put: add tasks to a queue unless an identical live task is already there (de-dup).
  KEYS[1] <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[2] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[3] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[4] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[5] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[6] <prefix>:{<queue>}:counts   HASH  counter name -> count
  KEYS[7] <prefix>:{<queue>}:wake     LIST  wake-up tokens for idle workers (at most one)
  ARGV[1] count         number of tasks in this call; then 8 slots per task, starting at ARGV[2]:
  ARGV[+1] id           identity hash (hex); a collision probes id-1, id-2, ...
  ARGV[+2] payload      canonical JSON payload
  ARGV[+3] key          caller's de-dup key, or '' to de-dup on the payload
  ARGV[+4] delay        ms after the server's now, or '' when at is given
  ARGV[+5] at           absolute run-at (epoch ms), or ''
  ARGV[+6] priority     '1' to go ahead of every normal task, else '0'
  ARGV[+7] expire       ms after run-at after which an unclaimed task is dropped, or ''
  ARGV[+8] maxAttempts  deliveries before the task goes dead
  Returns: { id, added (1|0), run-at, ... } three entries per task, in call order ]]
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local out, wake = {}, false

-- The record holding this identity, its metadata, and whether it is dead; nil when none.
local function find(base, payload, key)
  local n = 0
  while true do
    local id = n == 0 and base or (base .. '-' .. n)
    local raw = redis.call('HGET', KEYS[2], id)
    if not raw then return id, nil end
    local meta = cjson.decode(raw)
    -- Same hash is not same task: compare the identity itself, so a collision is stored apart.
    local same = (key ~= '' and meta.k == key)
      or (key == '' and meta.k == nil and redis.call('HGET', KEYS[1], id) == payload)
    if same then return id, meta end
    n = n + 1
  end
end

for i = 2, 1 + tonumber(ARGV[1]) * 8, 8 do
  local payload, key, priority = ARGV[i + 1], ARGV[i + 2], ARGV[i + 5] == '1'
  local id, old = find(ARGV[i], payload, key)
  local dead = old and redis.call('ZREM', KEYS[5], id) == 1
  if old and not dead then
    -- A live duplicate: a result, not an error.
    redis.call('HINCRBY', KEYS[6], 'deduplicated', 1)
    table.insert(out, id); table.insert(out, 0); table.insert(out, old.r)
  else
    -- New, or a dead task revived by putting it again.
    local runAt = ARGV[i + 4] ~= '' and tonumber(ARGV[i + 4]) or now + tonumber(ARGV[i + 3])
    local meta = { r = runAt, m = tonumber(ARGV[i + 7]), n = 0, c = now }
    if priority then meta.p = 1 end
    if key ~= '' then meta.k = key end
    if ARGV[i + 6] ~= '' then meta.x = tonumber(ARGV[i + 6]); meta.e = runAt + meta.x end
    redis.call('HSET', KEYS[1], id, payload)
    redis.call('HSET', KEYS[2], id, cjson.encode(meta))
    if runAt <= now then
      redis.call(priority and 'LPUSH' or 'RPUSH', KEYS[4], id)
      wake = true
    else
      redis.call('ZADD', KEYS[3], runAt, id)
      -- A new earliest run-at: an idle worker must re-arm its timer.
      local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
      if head == id then wake = true end
    end
    table.insert(out, id); table.insert(out, 1); table.insert(out, runAt)
  end
end
if wake and redis.call('LLEN', KEYS[7]) == 0 then redis.call('RPUSH', KEYS[7], '1') end
return out
