#!lua flags=no-writes
--[[ logs: read one task's log, oldest line first, in one consistent view (include: logs has the
  layout). A done task kept in the history has its log's newest entries there (include: history).
  KEYS (as K.<name>; each described in docs/design.md#keys): logs, history
  ARGV[1] id  task id
  Returns: its entries as chunks, oldest first: each chunk one or more entries, '<at> <line as a
    JSON string>\n' each; {} for none. A log 0.1 stored comes back as one chunk. ]]
-- include: logs, runs
local id = A.id
local head = redis.call('HGET', K.logs, id)
if not head then
  -- Done, and its latest run kept with the newest entries of its log (one chunk), or no log at all.
  local row = runs.latestField(C, id)
  local kept = row and redis.call('HGET', K.history, row .. '|log')
  if kept then return { kept } end
  return {}
end
local first, offset, last = logs.logHead(head)
if not first then return { head } end
return logs.readChunks(C, id, first, offset, last)
