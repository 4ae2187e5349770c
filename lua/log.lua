#!lua flags=allow-oom
--[[ log: append lines to a leased task's log, dropping its oldest lines beyond the caps. Refused
  when the caller no longer holds the lease (fencing), as ack is. It reads and writes the chunk it
  appends to and the one it drops from (include: logs has the layout), whatever the log holds.
  KEYS (as K.<name>; each described in docs/design.md#keys): active, tasks, logs
  ARGV[1] id        task id
  ARGV[2] token     the lease token handed out by claim
  ARGV[3] maxLines  most lines kept for the task
  ARGV[4] maxBytes  most bytes kept for the task (its entries, times and newlines included)
  ARGV[+1] line     a line, as a JSON string (stored as given: never decoded here)
  Returns: 1 when stored, 0 when the lease is lost ]]
-- include: record, clock, lease, logs, many, each
local now = clock.now(C)
local id = A.id
local meta = lease.held(C, id, A.token, now)
if not meta then return 0 end
local maxLines, maxBytes = tonumber(A.maxLines), tonumber(A.maxBytes)
-- A chunk grows to this many bytes, or holds one entry over it: a write moves at most this much
-- of what is stored (and a line it drops whole).
local CHUNK = 16384

-- The entries to add: this call's, each with the call's time. A log 0.1 stored (one field) goes
-- first, as if written now: its first write since the upgrade costs what each 0.1 write did.
local added = {}
local head = redis.call('HGET', K.logs, id)
local first, offset, last, lines, bytes = 1, 0, 0, 0, 0
if head then
  first, offset, last, lines, bytes = logs.logHead(head)
  if not first then
    first, offset, last, lines, bytes = 1, 0, 0, 0, 0
    for entry in string.gmatch(head, '[^\n]*\n') do table.insert(added, entry) end
  end
end
for i = 1, ITEMS do table.insert(added, now .. ' ' .. each.item(C, i) .. '\n') end

-- Over a cap, the oldest lines go first, so the log always ends with what was written last: those
-- to add first, while they alone are over (added[from] on are kept), then stored ones.
local from, size = 1, 0
for _, entry in ipairs(added) do size = size + #entry end
while #added - from + 1 > maxLines or size > maxBytes do
  size, from = size - #added[from], from + 1
end
local gone, chunk = {}, nil
while lines > 0 and (lines + #added - from + 1 > maxLines or bytes + size > maxBytes) do
  chunk = chunk or redis.call('HGET', K.logs, logs.chunkField(id, first))
  local stop = string.find(chunk, '\n', offset + 1, true)
  lines, bytes, offset = lines - 1, bytes - (stop - offset), stop
  if offset == #chunk then
    table.insert(gone, logs.chunkField(id, first))
    first, offset, chunk = first + 1, 0, nil
  end
end
many.many('HDEL', K.logs, gone)

-- The entries fill the last chunk while it has room, then new ones. Its size is read (HSTRLEN),
-- and its value only when an entry fits in it.
local w, fill = { id = id, n = last, parts = {}, extend = false, fields = {} }, CHUNK
if lines > 0 then fill, w.extend = redis.call('HSTRLEN', K.logs, logs.chunkField(id, last)), true end
for i = from, #added do
  if fill > 0 and fill + #added[i] > CHUNK then
    logs.closeChunk(C, w)
    w.n, fill = w.n + 1, 0
  end
  table.insert(w.parts, added[i]); fill = fill + #added[i]
end
logs.closeChunk(C, w)
many.many('HSET', K.logs, w.fields)
lines, bytes, last = lines + #added - from + 1, bytes + size, w.n
if lines == 0 then
  redis.call('HDEL', K.logs, id)
else
  redis.call('HSET', K.logs, id, table.concat({ first, offset, last, lines, bytes }, ' '))
end

-- The flag tells the scripts that delete the task to delete its log too (include: logs): a read
-- of heads only for the tasks that log, none for the rest.
if not meta.lg then
  meta.lg = 1
  redis.call('HSET', K.tasks, id, record.encode(meta))
end
return 1
