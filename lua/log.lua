#!lua flags=allow-oom
--[[ log: append lines to a leased task's log, dropping its oldest lines beyond the caps. Refused
  when the caller no longer holds the lease (fencing), as ack is. Its cost is the lines it adds
  and drops, whatever the log already holds (include: logs has the layout).
  KEYS (as K.<name>; each described in docs/design.md#keys): active, tasks, logs
  ARGV[1] id        task id
  ARGV[2] token     the lease token handed out by claim
  ARGV[3] maxLines  most lines kept for the task
  ARGV[4] maxBytes  most bytes kept for the task (each line's entry plus 1: its time, a space, its
                    JSON and the newline 0.1 ended it with)
  ARGV[+1] line     a line, as a JSON string (stored as given: never decoded here)
  Returns: 1 when stored, 0 when the lease is lost ]]
-- include: record
-- include: clock
-- include: lease
-- include: logs
local now = nowMs()
local id = ARGV[1]
local meta = held(id, ARGV[2], now)
if not meta then return 0 end
local maxLines, maxBytes = tonumber(ARGV[3]), tonumber(ARGV[4])

-- A log 0.1 stored (one field, each entry ending in '\n') becomes a field per line, once: this
-- first write since the upgrade costs what each of 0.1's writes did.
local function convert(old)
  local fields, n, bytes = {}, 0, 0
  for entry in string.gmatch(old, '([^\n]*)\n') do
    n, bytes = n + 1, bytes + #entry + 1
    table.insert(fields, lineField(id, n)); table.insert(fields, entry)
  end
  many('HSET', K.logs, fields)
  return 1, n, bytes
end

local head = redis.call('HGET', K.logs, id)
local first, last, bytes = 1, 0, 0
if head then
  first, last, bytes = logSpan(head)
  if not first then first, last, bytes = convert(head) end
end

-- Every line of this call carries the same time: the call's. Its lines become last + 1 to top.
local added = {}
for i = 5, #ARGV do
  added[#added + 1] = now .. ' ' .. ARGV[i]
  bytes = bytes + #added[#added] + 1
end
local top = last + #added

-- Over a cap: the oldest lines go first (this call's own too, when it alone is over), so the log
-- always ends with what was written last. A stored line's size is read (HSTRLEN), not its value.
local gone = {}
while first <= top and (top - first + 1 > maxLines or bytes > maxBytes) do
  if first <= last then
    bytes = bytes - redis.call('HSTRLEN', K.logs, lineField(id, first)) - 1
    table.insert(gone, lineField(id, first))
  else
    bytes = bytes - #added[first - last] - 1
  end
  first = first + 1
end
many('HDEL', K.logs, gone)
local fields = {}
for seq = math.max(first, last + 1), top do
  table.insert(fields, lineField(id, seq)); table.insert(fields, added[seq - last])
end
many('HSET', K.logs, fields)
if first > top then
  -- Nothing kept: no head either, so the next line is number 1 again.
  redis.call('HDEL', K.logs, id)
else
  redis.call('HSET', K.logs, id, first .. ' ' .. top .. ' ' .. bytes)
end

-- The flag tells the scripts that delete the task to delete its logs too (include: logs): a read
-- of heads only for the tasks that log, none for the rest.
if not meta.lg then
  meta.lg = 1
  redis.call('HSET', K.tasks, id, encode(meta))
end
return 1
