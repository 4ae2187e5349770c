#!lua flags=allow-oom
--[[ obliterate: delete every key of a queue (every suffix of lib/keys.ts), unless tasks of it are
  leased and force is not given. UNLINK, not DEL: Redis frees a large hash or sorted set (a million
  tasks) in a background thread, so this call takes as long as 46 key look-ups plus one step per
  dependency that crosses to another queue, whatever else the queue holds. The registry of queue
  names (outside the queue's hash tag) is the caller's.
  Tasks of other queues must not be stranded by it (include: deps has the steps): a task there
  waiting on one of this queue's is told that it was cancelled (a 'res' step), a task there that
  one of this queue's waited on forgets it (an 'unr' step), and steps already in the outbox for
  other queues still go, except registrations of this queue's tasks (they are gone). No script
  touches two queues, so those steps stay behind in `outbox`, the one key not deleted then, and
  the answer says 'carry': the caller carries them (lib/deps.ts) and calls again, which deletes
  the outbox once it is empty.
  KEYS[1]  <prefix>:{<queue>}:data           HASH
  KEYS[2]  <prefix>:{<queue>}:meta           HASH
  KEYS[3]  <prefix>:{<queue>}:delayed        ZSET
  KEYS[4]  <prefix>:{<queue>}:ready          LIST
  KEYS[5]  <prefix>:{<queue>}:active         ZSET  member = task id, score = lease deadline (ms): counted before anything goes
  KEYS[6]  <prefix>:{<queue>}:dead           ZSET
  KEYS[7]  <prefix>:{<queue>}:counts         HASH
  KEYS[8]  <prefix>:{<queue>}:wake           LIST
  KEYS[9]  <prefix>:{<queue>}:acked          ZSET
  KEYS[10] <prefix>:{<queue>}:workers        ZSET
  KEYS[11] <prefix>:{<queue>}:held           ZSET
  KEYS[12] <prefix>:{<queue>}:schedules      HASH
  KEYS[13] <prefix>:{<queue>}:occurred       HASH
  KEYS[14] <prefix>:{<queue>}:levels         ZSET
  KEYS[15] <prefix>:{<queue>}:ready1         LIST
  KEYS[16] <prefix>:{<queue>}:ready2         LIST
  KEYS[17] <prefix>:{<queue>}:ready3         LIST
  KEYS[18] <prefix>:{<queue>}:ready4         LIST
  KEYS[19] <prefix>:{<queue>}:ready5         LIST
  KEYS[20] <prefix>:{<queue>}:ready6         LIST
  KEYS[21] <prefix>:{<queue>}:ready7         LIST
  KEYS[22] <prefix>:{<queue>}:ready8         LIST
  KEYS[23] <prefix>:{<queue>}:ready9         LIST
  KEYS[24] <prefix>:{<queue>}:grouped        ZSET
  KEYS[25] <prefix>:{<queue>}:gtags          HASH
  KEYS[26] <prefix>:{<queue>}:parked         ZSET
  KEYS[27] <prefix>:{<queue>}:gactive        HASH
  KEYS[28] <prefix>:{<queue>}:glimits        HASH
  KEYS[29] <prefix>:{<queue>}:paused         STRING
  KEYS[30] <prefix>:{<queue>}:events         STREAM
  KEYS[31] <prefix>:{<queue>}:results        HASH
  KEYS[32] <prefix>:{<queue>}:kept           ZSET
  KEYS[33] <prefix>:{<queue>}:progress       HASH
  KEYS[34] <prefix>:{<queue>}:windows        ZSET
  KEYS[35] <prefix>:{<queue>}:waiting        HASH
  KEYS[36] <prefix>:{<queue>}:limits         HASH
  KEYS[37] <prefix>:{<queue>}:rates          ZSET
  KEYS[38] <prefix>:{<queue>}:gheld          ZSET
  KEYS[39] <prefix>:{<queue>}:blocked        ZSET
  KEYS[40] <prefix>:{<queue>}:after          ZSET  lex: '<id>|<ref>|<ref queue>': what this queue's tasks still wait on
  KEYS[41] <prefix>:{<queue>}:dependents     ZSET  lex: '<ref>|<id>|<queue>': tasks of any queue waiting on this queue's
  KEYS[42] <prefix>:{<queue>}:deplist        HASH
  KEYS[43] <prefix>:{<queue>}:settle         LIST
  KEYS[44] <prefix>:{<queue>}:outbox         ZSET  JSON steps for other queues, score = when due (ms): kept until carried
  KEYS[45] <prefix>:{<queue>}:logs           HASH
  KEYS[46] <prefix>:{<queue>}:moved          HASH
  ARGV[1] force  1 to delete even while tasks are leased, else 0
  Returns: { 'ok', keys deleted }, { 'carry', keys deleted } (every key but the outbox, which
    holds steps for other queues), or { 'active', leased tasks } (then nothing was deleted) ]]
local AFTER, DEPENDENTS, OUTBOX = 40, 41, 44
if ARGV[1] ~= '1' then
  local leased = redis.call('ZCARD', KEYS[5])
  if leased > 0 then return { 'active', leased } end
end
local QUEUE = string.match(KEYS[1], '{(.*)}')
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local steps = {}
-- Ids and hashes hold no '|': a member splits at its first two, and the queue is the rest.
for _, m in ipairs(redis.call('ZRANGE', KEYS[DEPENDENTS], 0, -1)) do
  local ref, id, q = string.match(m, '^([^|]*)|([^|]*)|(.*)$')
  if q ~= QUEUE then table.insert(steps, cjson.encode({ 'res', q, id, ref, QUEUE, 'cancelled' })) end
end
for _, m in ipairs(redis.call('ZRANGE', KEYS[AFTER], 0, -1)) do
  local id, ref, q = string.match(m, '^([^|]*)|([^|]*)|(.*)$')
  if q ~= QUEUE then table.insert(steps, cjson.encode({ 'unr', q, ref, id, QUEUE })) end
end
for _, step in ipairs(redis.call('ZRANGE', KEYS[OUTBOX], 0, -1)) do
  if string.sub(step, 1, 7) == '["reg",' then redis.call('ZREM', KEYS[OUTBOX], step) end
end
for i = 1, #steps, 500 do
  local part = {}
  for j = i, math.min(i + 499, #steps) do table.insert(part, now); table.insert(part, steps[j]) end
  redis.call('ZADD', KEYS[OUTBOX], unpack(part))
end
local others = {}
for i, key in ipairs(KEYS) do if i ~= OUTBOX then table.insert(others, key) end end
local deleted = redis.call('UNLINK', unpack(others))
if redis.call('EXISTS', KEYS[OUTBOX]) == 1 then return { 'carry', deleted } end
return { 'ok', deleted }
