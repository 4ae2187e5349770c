#!lua flags=no-writes
--[[ result: what docket knows of a task: its live record, else its kept outcome, else nothing.
  KEYS (as K.<name>; each described in docs/design.md#keys): tasks, delayed, active, dead, results,
    progress, events, history
  ARGV[1] id      task id
  ARGV[2] stream  '1' to answer the events stream's latest entry id too (a waiting caller reads on from it)
  Returns: { kind, a, b, c, d, stream id or '' }: kind 'live' with a = meta JSON, b = state
    (delayed, ready, active or dead), c = progress JSON or '', d = died-at (dead) or ''; 'kept'
    with a = the outcome string (include: outcomes), or one made of the task's done record in the
    history (include: history), keep-until '' ; 'none' ]]
-- include: clock, record, runs
local id = A.id
local stream = ''
if A.stream == '1' then
  local last = redis.call('XREVRANGE', K.events, '+', '-', 'COUNT', 1)[1]
  stream = last and last[1] or '0-0'
end
local raw = redis.call('HGET', K.tasks, id)
if raw then
  local meta = record.split(raw)
  local progress = redis.call('HGET', K.progress, id) or ''
  if redis.call('ZSCORE', K.active, id) then return { 'live', meta, 'active', progress, '', stream } end
  if redis.call('ZSCORE', K.delayed, id) then return { 'live', meta, 'delayed', progress, '', stream } end
  local died = redis.call('ZSCORE', K.dead, id)
  if died then return { 'live', meta, 'dead', progress, died, stream } end
  return { 'live', meta, 'ready', progress, '', stream }
end
local outcome = redis.call('HGET', K.results, id)
if outcome then
  local now = clock.now(C)
  -- Past its keep-until, an outcome is gone, whether or not a later write has deleted it yet.
  local until_ = tonumber(string.match(outcome, '^[^|]*|[^|]*|[^|]*|([^|]*)|'))
  if until_ and until_ > now then return { 'kept', outcome, '', '', '', stream } end
end
-- Kept by the history (its caps, not keepResult, bound it): its latest run (include: runs), as an
-- outcome string as outcomes keeps.
local done = runs.latestRun(C, id)
if done then
  local meta = record.peek(done)
  return { 'kept', 'done|' .. meta.f .. '|' .. meta.n .. '||' .. (meta.rs or ''), '', '', '', stream }
end
return { 'none', '', '', '', '', stream }
