#!lua flags=no-writes
--[[ result: what docket knows of a task: its live record, else its kept outcome, else nothing.
  KEYS[1] <prefix>:{<queue>}:meta     HASH  task id -> JSON task metadata
  KEYS[2] <prefix>:{<queue>}:delayed  ZSET  member = task id, score = run-at (ms)
  KEYS[3] <prefix>:{<queue>}:active   ZSET  member = task id, score = lease deadline (ms)
  KEYS[4] <prefix>:{<queue>}:dead     ZSET  member = task id, score = died-at (ms)
  KEYS[5] <prefix>:{<queue>}:results  HASH  task id -> kept outcome of a finished task (include: outcomes)
  KEYS[6] <prefix>:{<queue>}:progress HASH  task id -> JSON progress its handler reported
  KEYS[7] <prefix>:{<queue>}:events   STREAM outcomes, read by waiting callers
  ARGV[1] id      task id
  ARGV[2] stream  '1' to answer the events stream's latest entry id too (a waiting caller reads on from it)
  Returns: { kind, a, b, c, d, stream id or '' }: kind 'live' with a = meta JSON, b = state
    (delayed, ready, active or dead), c = progress JSON or '', d = died-at (dead) or ''; 'kept'
    with a = the outcome string (include: outcomes); 'none' ]]
local id = ARGV[1]
local stream = ''
if ARGV[2] == '1' then
  local last = redis.call('XREVRANGE', KEYS[7], '+', '-', 'COUNT', 1)[1]
  stream = last and last[1] or '0-0'
end
local meta = redis.call('HGET', KEYS[1], id)
if meta then
  local progress = redis.call('HGET', KEYS[6], id) or ''
  if redis.call('ZSCORE', KEYS[3], id) then return { 'live', meta, 'active', progress, '', stream } end
  if redis.call('ZSCORE', KEYS[2], id) then return { 'live', meta, 'delayed', progress, '', stream } end
  local died = redis.call('ZSCORE', KEYS[4], id)
  if died then return { 'live', meta, 'dead', progress, died, stream } end
  return { 'live', meta, 'ready', progress, '', stream }
end
local outcome = redis.call('HGET', KEYS[5], id)
if outcome then
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  -- Past its keep-until, an outcome is gone, whether or not a later write has deleted it yet.
  local until_ = tonumber(string.match(outcome, '^[^|]*|[^|]*|[^|]*|([^|]*)|'))
  if until_ and until_ > now then return { 'kept', outcome, '', '', '', stream } end
end
return { 'none', '', '', '', '', stream }
