#!lua flags=allow-oom
--[[ progress: store the latest progress of a leased task. Refused when the caller no longer holds
  the lease (fencing), as ack is.
  KEYS (as K.<name>; each described in docs/design.md#keys): active, tasks, progress, events
  ARGV[1] id      task id
  ARGV[2] token   the lease token handed out by claim
  ARGV[3] value   the progress, as JSON (stored as given: never decoded here)
  ARGV[4] events  most entries kept in the events stream; 0 for no events
  Returns: 1 when stored, 0 when the lease is lost ]]
-- include: record, clock, lease, events
local now = clock.now(C)
local id = A.id
local meta = lease.held(C, id, A.token, now)
if not meta then return 0 end
redis.call('HSET', K.progress, id, A.value)
-- The flag tells the scripts that delete the task to delete its progress too: one HDEL for the
-- tasks that report progress, none for the rest.
if not meta.pg then
  meta.pg = 1
  redis.call('HSET', K.tasks, id, record.encode(meta))
end
-- An event carries a small value whole; a large one is read with get() (a cut JSON would not parse).
if #A.value <= 1024 then
  events.emitFor(C, tonumber(A.events), meta, 'type', 'progress', 'id', id, 'attempt', meta.n, 'progress', A.value)
else
  events.emitFor(C, tonumber(A.events), meta, 'type', 'progress', 'id', id, 'attempt', meta.n)
end
return 1
