#!lua flags=allow-oom
--[[ migrate: move a batch of a queue's tasks from the layout before one field per task (a record
  in `meta` and its payload in `data`, both keyed by task id) into `tasks` (include: record), so a
  queue written by an earlier docket 0.x keeps its tasks. Each task moves whole in one call, so a
  crash between calls leaves every task readable in one layout or the other. createScheduler
  (lib/redis/layout.ts) calls it, with the cursor of the last call, until nothing is left.
  KEYS (as K.<name>; each described in docs/design.md#keys): data, meta, tasks
  ARGV[1] most    most tasks to move in this call
  ARGV[2] cursor  the HSCAN cursor the last call answered; '0' to start
  Returns: { tasks left in the old layout, the cursor to pass next } ]]
local most, cursor = tonumber(A.most), A.cursor
-- The cursor is carried from call to call: a scan from 0 each time would pass ever more emptied
-- buckets (HSCAN looks at about 10 x COUNT of them per call) and could come back empty while tasks
-- remain. SCAN's promise holds while fields are deleted: each field present throughout is seen.
local moved = 0
repeat
  local reply = redis.call('HSCAN', K.meta, cursor, 'COUNT', most)
  cursor = reply[1]
  local fields = reply[2]
  for i = 1, #fields, 2 do
    local id, meta = fields[i], fields[i + 1]
    -- A record whose payload is missing (a damaged queue) keeps a null payload rather than vanish.
    local payload = redis.call('HGET', K.data, id) or 'null'
    redis.call('HSET', K.tasks, id, meta .. '\n' .. payload)
    redis.call('HDEL', K.meta, id)
    redis.call('HDEL', K.data, id)
  end
  moved = moved + #fields / 2
until moved >= most or cursor == '0'
local left = redis.call('HLEN', K.meta)
-- Payloads with no record were garbage in the old layout too.
if left == 0 then redis.call('DEL', K.data) end
return { left, cursor }
