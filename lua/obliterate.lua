#!lua flags=allow-oom
--[[ obliterate: delete every key of a queue (every suffix of lib/domain/keys.ts), unless tasks of it are
  leased and force is not given. UNLINK, not DEL: Redis frees a large hash or sorted set (a million
  tasks) in a background thread, so this call takes as long as 50 key look-ups plus one step per
  dependency that crosses to another queue, whatever else the queue holds. The registry of queue
  names (outside the queue's hash tag) is the caller's.
  Tasks of other queues must not be stranded by it (include: deps has the steps): a task there
  waiting on one of this queue's is told that it was cancelled (a 'res' step), a task there that
  one of this queue's waited on forgets it (an 'unr' step), and steps already in the outbox for
  other queues still go, except registrations of this queue's tasks (they are gone). No script
  touches two queues, so those steps stay behind in `outbox`, the one key not deleted then, and
  the answer says 'carry': the caller carries them (lib/features/deps.ts) and calls again, which deletes
  the outbox once it is empty.
  KEYS (as K.<name>; each described in docs/design.md#keys): tasks, delayed, ready, active, dead,
    counts, wake, acked, workers, held, busy, schedules, occurred, levels, ready1, ready2, ready3,
    ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags, parked, gactive, glimits, paused,
    events, results, kept, progress, windows, redirects, limits, rates, gheld, blocked, after,
    dependents, deplist, settle, outbox, logs, moved, done, history, keep, minutes,
    cancels, gpaused, warned, data, meta, waiting
  ARGV[1] force  1 to delete even while tasks are leased, else 0
  Returns: { 'ok', keys deleted }, { 'carry', keys deleted } (every key but the outbox, which
    holds steps for other queues), or { 'active', leased tasks } (then nothing was deleted) ]]
-- include: clock, many
if A.force ~= '1' then
  local leased = redis.call('ZCARD', K.active)
  if leased > 0 then return { 'active', leased } end
end
local QUEUE = string.match(K.tasks, '{(.*)}')
local now = clock.now(C)
-- The steps for other queues, as the outbox's score-member pairs (score: when due, now).
local steps = {}
-- Ids and hashes hold no '|': a member splits at its first two, and the queue is the rest.
for _, m in ipairs(redis.call('ZRANGE', K.dependents, 0, -1)) do
  local ref, id, q = string.match(m, '^([^|]*)|([^|]*)|(.*)$')
  if q ~= QUEUE then table.insert(steps, now); table.insert(steps, cjson.encode({ 'res', q, id, ref, QUEUE, 'cancelled' })) end
end
for _, m in ipairs(redis.call('ZRANGE', K.after, 0, -1)) do
  local id, ref, q = string.match(m, '^([^|]*)|([^|]*)|(.*)$')
  if q ~= QUEUE then table.insert(steps, now); table.insert(steps, cjson.encode({ 'unr', q, ref, id, QUEUE })) end
end
for _, step in ipairs(redis.call('ZRANGE', K.outbox, 0, -1)) do
  if string.sub(step, 1, 7) == '["reg",' then redis.call('ZREM', K.outbox, step) end
end
many.many('ZADD', K.outbox, steps)
local others = {}
for _, key in ipairs(KEYS) do if key ~= K.outbox then table.insert(others, key) end end
local deleted = redis.call('UNLINK', unpack(others))
if redis.call('EXISTS', K.outbox) == 1 then return { 'carry', deleted } end
return { 'ok', deleted }
