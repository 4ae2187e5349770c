#!lua
--[[ reschedule: move a pending (delayed, ready or waiting) task's run-at. A ready task moved into the
  future goes back to the delayed set; a delayed task moved to now or earlier becomes ready.
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, active, meta, dead,
    wake, levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9,
    grouped, gtags, parked, gactive, glimits, moved
  ARGV[1] id  task id
  ARGV[2] at  new run-at (epoch ms)
  Returns: 1 when moved, 0 for an active, dead or unknown task ]]
-- include: levels
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local id, at = ARGV[1], tonumber(ARGV[2])
local raw = redis.call('HGET', K.meta, id)
if not raw or redis.call('ZSCORE', K.active, id) or redis.call('ZSCORE', K.dead, id) then return 0 end
local meta = cjson.decode(raw)
local delayed = redis.call('ZSCORE', K.delayed, id)
-- The expiry window moves with the run-at: it counts from when the task becomes due.
meta.r = at
if meta.x then meta.e = at + meta.x end
if meta.a then
  -- Waiting on its dependencies (include: deps): it keeps waiting, and is queued for this run-at.
  redis.call('HSET', K.meta, id, cjson.encode(meta))
  return 1
end
local wake = false
if at > now then
  if not delayed then unqueue(id, meta, K.moved) end
  redis.call('ZADD', K.delayed, at, id)
  wake = redis.call('ZRANGE', K.delayed, 0, 0)[1] == id
elseif delayed then
  redis.call('ZREM', K.delayed, id)
  push(id, meta)
  wake = true
end
redis.call('HSET', K.meta, id, cjson.encode(meta))
if wake and redis.call('LLEN', K.wake) == 0 then redis.call('RPUSH', K.wake, '1') end
return 1
