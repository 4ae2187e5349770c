--[[ logs: a task's log in the queue's `logs` hash (included by log, logs and the scripts that delete
  tasks). One field per line, so that a write touches the lines it adds and drops, never the rest
  of the log (0.1 kept the whole log in one field, which every write read and wrote back: 167 ms a
  write at 20 MB). A task that logged has
    `<id>`        its head: '<first> <last> <bytes>', the sequence numbers of its oldest and newest
                  kept lines and what the caps count of them (each entry's length plus 1)
    `<id>|<seq>`  one line, for seq first to last: '<at> <line as a JSON string>'
  Task ids hold no '|', so no line's field is another task's head. A head holding a newline is a
  log 0.1 stored: all its entries in its one field, each ending in '\n' (read as it is, deleted as
  a head without lines, converted to fields by its first write: lua/log.lua). ]]
-- include: many

-- The field of line `seq` of task id's log.
local function lineField(id, seq) return id .. '|' .. seq end

-- A head's first, last and bytes; nil for a log stored by 0.1 (no lines of its own).
local function logSpan(head)
  local first, last, bytes = string.match(head, '^(%d+) (%d+) (%d+)$')
  if first then return tonumber(first), tonumber(last), tonumber(bytes) end
end

-- Most field names held at once: a log may keep up to 1,000,000 lines (logMaxLines).
local LOG_BATCH = 1000

-- Deletes the logs of tasks `ids` (those without one cost nothing but the read of heads): each
-- head and its lines. Its cost is the lines deleted, each written once by some earlier log call;
-- at most logMaxLines a task, so bounded by the caps the logs were written with.
local function forgetLogs(ids)
  for part in slices(ids) do
    local heads = redis.call('HMGET', K.logs, unpack(part))
    local names = {}
    for j, id in ipairs(part) do
      if heads[j] then
        table.insert(names, id)
        local first, last = logSpan(heads[j])
        for seq = first or 1, last or 0 do
          table.insert(names, lineField(id, seq))
          if #names == LOG_BATCH then redis.call('HDEL', K.logs, unpack(names)); names = {} end
        end
      end
    end
    many('HDEL', K.logs, names)
  end
end

-- The entries of lines first to last of task id's log, oldest first.
local function readLines(id, first, last)
  local entries = {}
  for from = first, last, LOG_BATCH do
    local names = {}
    for seq = from, math.min(from + LOG_BATCH - 1, last) do table.insert(names, lineField(id, seq)) end
    for _, entry in ipairs(redis.call('HMGET', K.logs, unpack(names))) do
      if entry then table.insert(entries, entry) end
    end
  end
  return entries
end

-- Deletes task id's log, if it has one.
local function forgetLog(id) forgetLogs({ id }) end
