--[[ logs: a task's log in the queue's `logs` hash (included by log, logs and the scripts that delete
  tasks). Its entries, '<at> <line as a JSON string>\n' each (a JSON string holds no raw newline),
  are kept in chunks of up to 16 KiB, so that a write reads and writes the chunks it appends to and
  drops from, never the whole log (0.1 kept it all in one field, which every write read and wrote
  back: 167 ms a write at 20 MB). A task that logged has
    `<id>`      its head: '<first> <offset> <last> <lines> <bytes>': its chunks are first to last,
                the first one's entries from byte offset on (those before it are dropped), and
                lines and bytes are what the caps count of them (bytes: each entry with its '\n')
    `<id>|<n>`  chunk n: whole entries; one entry alone when it is over 16 KiB
  Task ids hold no '|', so no chunk's field is another task's head. A head holding a newline is a
  log 0.1 stored: all its entries in that one field (read as it is, deleted as a head without
  chunks, converted to chunks by its first write: lua/log.lua). ]]
-- include: many
local logs = {}

-- The field of chunk n of task id's log.
function logs.chunkField(id, n) return id .. '|' .. n end

-- Ends the chunk a write is filling (log): `w` holds the task's id, the chunk's number n, the
-- entries for it (parts), whether they extend what it holds already (extend), and the fields and
-- values to write. The next chunk starts empty.
function logs.closeChunk(C, w)
  if #w.parts > 0 then
    local value = table.concat(w.parts)
    if w.extend then value = redis.call('HGET', C.K.logs, logs.chunkField(w.id, w.n)) .. value end
    table.insert(w.fields, logs.chunkField(w.id, w.n)); table.insert(w.fields, value)
  end
  w.parts, w.extend = {}, false
end

-- A head's first, offset, last, lines and bytes; nil for a log stored by 0.1.
function logs.logHead(head)
  local first, offset, last, lines, bytes = string.match(head, '^(%d+) (%d+) (%d+) (%d+) (%d+)$')
  if first then return tonumber(first), tonumber(offset), tonumber(last), tonumber(lines), tonumber(bytes) end
end

-- Most field names held at once (a log of 512 MiB, logMaxBytes' largest, has 32,768 chunks).
local LOG_BATCH = 1000

-- Deletes the logs of tasks `ids` (those without one cost nothing but the read of heads): each
-- head and its chunks. It costs the chunks deleted, each written by earlier log calls: at most
-- one per 16 KiB of log (plus one per line over that), so bounded by the caps they were kept under.
function logs.forgetLogs(C, ids)
  for part in many.slices(ids) do
    local logHeads = redis.call('HMGET', C.K.logs, unpack(part))
    local names = {}
    for j, id in ipairs(part) do
      if logHeads[j] then
        table.insert(names, id)
        local first, _, last = logs.logHead(logHeads[j])
        for n = first or 1, last or 0 do
          table.insert(names, logs.chunkField(id, n))
          if #names == LOG_BATCH then redis.call('HDEL', C.K.logs, unpack(names)); names = {} end
        end
      end
    end
    many.many('HDEL', C.K.logs, names)
  end
end

-- Deletes task id's log, if it has one.
function logs.forgetLog(C, id) logs.forgetLogs(C, { id }) end

-- The kept entries of task id's log as chunk values, oldest first (the first cut at offset).
function logs.readChunks(C, id, first, offset, last)
  local chunks = {}
  for from = first, last, LOG_BATCH do
    local names = {}
    for n = from, math.min(from + LOG_BATCH - 1, last) do table.insert(names, logs.chunkField(id, n)) end
    for j, chunk in ipairs(redis.call('HMGET', C.K.logs, unpack(names))) do
      if chunk and from + j - 1 == first then chunk = string.sub(chunk, offset + 1) end
      if chunk then table.insert(chunks, chunk) end
    end
  end
  return chunks
end
