#!lua flags=no-writes
--[[ logs: read one task's log, oldest line first, in one consistent view (include: logs has the
  layout).
  KEYS (as K.<name>; each described in docs/design.md#keys): logs
  ARGV[1] id  task id
  Returns: its entries, each '<at> <line as a JSON string>'; {} for none. A log 0.1 stored comes
    back as one entry holding all its lines, each ending in '\n'. ]]
-- include: logs
local id = ARGV[1]
local head = redis.call('HGET', K.logs, id)
if not head then return {} end
local first, last = logSpan(head)
if not first then return { head } end
return readLines(id, first, last)
