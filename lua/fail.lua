#!lua flags=allow-oom
--[[ fail: a held task's handler failed; retry it after a back-off, or make it dead when out of
  attempts. Refused when the caller no longer holds the lease (fencing).
  KEYS[1] <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[2] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[3] <prefix>:{<queue>}:ready    LIST  task ids; head = next to claim
  KEYS[4] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[5] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[6] <prefix>:{<queue>}:counts   HASH  counter name -> count
  KEYS[7] <prefix>:{<queue>}:wake     LIST  wake-up tokens for idle workers (at most one)
  KEYS[8] <prefix>:{<queue>}:held     ZSET  lex index: member = worker id .. '|' .. task id, score 0
  KEYS[9]  <prefix>:{<queue>}:levels   ZSET  priority levels whose ready lists may hold tasks, score = level
  KEYS[10] <prefix>:{<queue>}:ready1   LIST  ready task ids of priority level 1; head = next
  KEYS[11] <prefix>:{<queue>}:ready2   LIST  ready task ids of priority level 2; head = next
  KEYS[12] <prefix>:{<queue>}:ready3   LIST  ready task ids of priority level 3; head = next
  KEYS[13] <prefix>:{<queue>}:ready4   LIST  ready task ids of priority level 4; head = next
  KEYS[14] <prefix>:{<queue>}:ready5   LIST  ready task ids of priority level 5; head = next
  KEYS[15] <prefix>:{<queue>}:ready6   LIST  ready task ids of priority level 6; head = next
  KEYS[16] <prefix>:{<queue>}:ready7   LIST  ready task ids of priority level 7; head = next
  KEYS[17] <prefix>:{<queue>}:ready8   LIST  ready task ids of priority level 8; head = next
  KEYS[18] <prefix>:{<queue>}:ready9   LIST  ready task ids of priority level 9; head = next
  KEYS[19] <prefix>:{<queue>}:grouped  ZSET  ready tasks of fair groups, score = virtual start tag (round)
  KEYS[20] <prefix>:{<queue>}:gtags    HASH  group -> its latest tag; field '' -> the round claims have reached
  KEYS[21] <prefix>:{<queue>}:parked   ZSET  lex: '<group>|<order>|<id>' ready tasks held back by their group's limit, score 0
  KEYS[22] <prefix>:{<queue>}:gactive  HASH  group -> its active tasks
  KEYS[23] <prefix>:{<queue>}:glimits  HASH  group -> most active tasks; field '' -> the limit of every other group
  KEYS[24] <prefix>:{<queue>}:events   STREAM outcomes (here: failed, dead), capped by length
  KEYS[25] <prefix>:{<queue>}:results  HASH  task id -> kept outcome of a finished task (include: outcomes)
  KEYS[26] <prefix>:{<queue>}:kept     ZSET  member = task id, score = when its kept outcome goes (ms)
  KEYS[27] <prefix>:{<queue>}:data     HASH  task id -> canonical JSON payload
  KEYS[28] <prefix>:{<queue>}:progress HASH  task id -> JSON progress its handler reported
  KEYS[29] <prefix>:{<queue>}:waiting  HASH  base id -> id of its until-start identity's waiting task (include: identity)
  KEYS[30] <prefix>:{<queue>}:limits   HASH  queue-wide limits: field 'concurrency' -> most leased tasks at once
  KEYS[31] <prefix>:{<queue>}:blocked  ZSET  member = task id waiting on its dependencies, score = when put (ms) (include: deps)
  KEYS[32] <prefix>:{<queue>}:after    ZSET  lex: '<id>|<ref>|<ref queue>' dependencies not yet settled, score 0
  KEYS[33] <prefix>:{<queue>}:dependents ZSET lex: '<ref>|<id>|<queue>' tasks waiting on task ref of this queue, score 0
  KEYS[34] <prefix>:{<queue>}:deplist  HASH  task id -> JSON [[queue, hash], ...] the tasks it was put after
  KEYS[35] <prefix>:{<queue>}:settle   LIST  JSON steps of dependency work for this queue, taken by claims
  KEYS[36] <prefix>:{<queue>}:outbox   ZSET  JSON steps for other queues, score = when due (ms); carried by clients
  KEYS[37] <prefix>:{<queue>}:logs     HASH  task id -> its log lines, '<at ms> <JSON string>\n' each, oldest first
  ARGV[1] id           task id
  ARGV[2] token        the lease token handed out by claim
  ARGV[3] retryIn      ms from the server's now until the retry
  ARGV[4] error        last error, kept for inspection
  ARGV[5] maxAttempts  overrides the task's own limit, or '' to keep it
  ARGV[6] events       most entries kept in the events stream; 0 for no events
  Returns: 'retry', 'dead', 'merged' (an until-start task whose identity already has a task
    waiting: deleted instead of retried) or 'lost'; ':carry' appended when the call left steps in
    the outbox for other queues (a dead task others wait on), for the client to carry at once ]]
local READY, LEVELS, EVENTS, RESULTS, KEPT = 3, 9, 24, 25, 26
local DATA, META, DEAD, PROGRESS, WAITING, LIMITS = 27, 4, 5, 28, 29, 30
local DELAYED, COUNTS, BLOCKED, AFTER, DEPENDENTS, DEPLIST, SETTLE, OUTBOX = 2, 6, 31, 32, 33, 34, 35, 36
local LOGS = 37
-- include: levels
-- include: events
-- include: outcomes
-- include: identity
-- include: deps
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local id = ARGV[1]
local deadline = tonumber(redis.call('ZSCORE', KEYS[1], id))
if not deadline or deadline <= now then return 'lost' end
local meta = cjson.decode(redis.call('HGET', KEYS[4], id))
if meta.t ~= ARGV[2] then return 'lost' end

redis.call('ZREM', KEYS[1], id)
redis.call('ZREM', KEYS[8], meta.w .. '|' .. id)
meta.t, meta.l, meta.w, meta.err = nil, nil, nil, ARGV[4]
-- Its group (if any) has a place again, which a parked task may take, or the queue a concurrency
-- slot: then a worker should look.
local wake = finished(meta) > 0 or redis.call('EXISTS', KEYS[LIMITS]) == 1
local limit = ARGV[5] ~= '' and tonumber(ARGV[5]) or meta.m
local result = 'retry'
redis.call('HINCRBY', KEYS[6], 'failed', 1)
countNamed(KEYS[6], 'failed', meta)
-- (Not one that others wait on: they wait on this task, so it is retried.)
local into = meta.n < limit and not meta.dp and waitingCopy(id, meta)
if into then
  -- Its identity already has a task waiting, put while this one ran: that one does the work.
  redis.call('HDEL', KEYS[DATA], id)
  redis.call('HDEL', KEYS[META], id)
  if meta.pg then redis.call('HDEL', KEYS[PROGRESS], id) end
  if meta.lg then redis.call('HDEL', KEYS[LOGS], id) end
  if meta.dl then redis.call('HDEL', KEYS[DEPLIST], id) end
  redis.call('HINCRBY', KEYS[6], 'merged', 1)
  emitFor(tonumber(ARGV[6]), meta, 'type', 'merged', 'id', id, 'attempt', meta.n, 'error', brief(meta.err), 'into', into)
  keepOutcome(id, meta, now, 'merged', into)
  if wake and redis.call('LLEN', KEYS[7]) == 0 then redis.call('RPUSH', KEYS[7], '1') end
  return 'merged'
end
if meta.n >= limit then
  -- Kept for inspection and re-drive; claim trims the dead set by count and age.
  redis.call('ZADD', KEYS[5], now, id)
  redis.call('HINCRBY', KEYS[6], 'dead', 1)
  countNamed(KEYS[6], 'dead', meta)
  result = 'dead'
  emitFor(tonumber(ARGV[6]), meta, 'type', 'dead', 'id', id, 'attempt', meta.n, 'error', brief(meta.err))
  keepOutcome(id, meta, now, 'dead', meta.err)
  fire(id, meta, 'dead', now)
else
  emitFor(tonumber(ARGV[6]), meta, 'type', 'failed', 'id', id, 'attempt', meta.n, 'error', brief(meta.err))
  repoint(id, meta)
  meta.r = now + tonumber(ARGV[3])
  if meta.r <= now then
    push(id, meta)
    wake = true
  else
    redis.call('ZADD', KEYS[2], meta.r, id)
    -- A new earliest run-at: an idle worker must re-arm its timer.
    wake = wake or redis.call('ZRANGE', KEYS[2], 0, 0)[1] == id
  end
end
redis.call('HSET', KEYS[4], id, cjson.encode(meta))
-- The tasks that waited on it learn now (a batch; claims take the rest).
if stepped then drain(100, now, tonumber(ARGV[6])) end
if (wake or stepped) and redis.call('LLEN', KEYS[7]) == 0 then redis.call('RPUSH', KEYS[7], '1') end
if outboxed then return result .. ':carry' end
return result
