#!lua flags=allow-oom
--[[ log: append lines to a leased task's log, dropping its oldest lines beyond the caps. Refused
  when the caller no longer holds the lease (fencing), as ack is.
  KEYS (as K.<name>; each described in docs/design.md#keys): active, tasks, logs
  ARGV[1] id        task id
  ARGV[2] token     the lease token handed out by claim
  ARGV[3] maxLines  most lines kept for the task
  ARGV[4] maxBytes  most bytes kept for the task (its whole field, times and quotes included)
  ARGV[+1] line     a line, as a JSON string (stored as given: never decoded here)
  Returns: 1 when stored, 0 when the lease is lost ]]
-- include: record
-- include: clock
-- include: lease
local now = nowMs()
local id = ARGV[1]
local meta = held(id, ARGV[2], now)
if not meta then return 0 end
local maxLines, maxBytes = tonumber(ARGV[3]), tonumber(ARGV[4])

-- Every line of this call carries the same time: the call's. A JSON string holds no raw newline,
-- so '\n' ends an entry and the field is read back by splitting on it.
local added = {}
for i = 5, #ARGV do added[#added + 1] = now .. ' ' .. ARGV[i] .. '\n' end
local old = redis.call('HGET', K.logs, id) or ''
local value = old .. table.concat(added)
local lines = #added
for _ in string.gmatch(old, '\n') do lines = lines + 1 end
-- Over a cap: the oldest lines go first, so the log always ends with what was written last.
local from = 1
while lines > 0 and (lines > maxLines or #value - from + 1 > maxBytes) do
  from = string.find(value, '\n', from, true) + 1
  lines = lines - 1
end
if lines == 0 then
  redis.call('HDEL', K.logs, id)
else
  redis.call('HSET', K.logs, id, from > 1 and string.sub(value, from) or value)
end
-- The flag tells the scripts that delete the task to delete its logs too: one HDEL for the tasks
-- that log, none for the rest.
if not meta.lg then
  meta.lg = 1
  redis.call('HSET', K.tasks, id, encode(meta))
end
return 1
