#!lua flags=allow-oom
--[[ clean: delete one batch of a queue's ready, delayed or dead tasks, read from one source: the
  caller (lib/features/clean.ts) walks the sources of a state and calls again from the cursor returned, so
  no call examines more than `scan` entries or deletes more than `most` tasks. A claimed task is
  in `active`, in no source, so a clean never deletes it. A pending task goes as cancel deletes
  it: out of its list (a ready list, grouped, parked or delayed), its identity pointer, its
  record, progress and deplist, and the tasks waiting on it learn it was 'cancelled' (event and
  kept outcome as cancel's). A dead task goes as purge deletes it. Either way, an ordered group
  whose held head it was goes on (include: heads).
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, tasks, dead, levels,
    ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags, parked,
    gactive, glimits, events, results, kept, progress, redirects, counts, wake, blocked, after,
    dependents, deplist, settle, outbox, logs, moved
  ARGV[1] source  where to read: dead, delayed, ready, ready1 to ready9, grouped or parked
  ARGV[2] before  only tasks put (dead ones: died) at or before this time (epoch ms); -1 for all
  ARGV[3] most    most tasks to delete in this call
  ARGV[4] scan    most entries to examine in this call
  ARGV[5] cursor  where the previous call in this source stopped; '' to start
  ARGV[6] events  most entries kept in the events stream; 0 for no events
  Returns: { deleted, 1 when the source is done else 0, next cursor, 1 when steps for other
    queues were made, or steps were left in `settle` past this call's batch (for the caller to
    carry) else 0 } ]]
-- include: clock, many, wake, ready, events, outcomes, identity, deps, settle, records, levels
-- include: groups, logs, heads
local source, before, most, scan, cursor, cap = A.source, tonumber(A.before), tonumber(A.most), tonumber(A.scan), A.cursor, tonumber(A.events)
local now = clock.now(C)
sweep.start(C, before, most, cap)
-- What a cleaned list entry becomes until one LREM takes them all: task ids hold no '|'.
local TOMB = '|cleaned|'
-- include: sweep

-- Dead tasks, oldest death first: every one read goes, so no cursor is needed (purge's deletion,
-- a few variadic commands per slice instead of five per task).
if source == 'dead' then
  local ids = redis.call('ZRANGEBYSCORE', K.dead, '-inf', before < 0 and '+inf' or A.before, 'LIMIT', 0, most)
  many.many('ZREM', K.dead, ids)
  for _, key in ipairs({ K.tasks, K.progress, K.deplist }) do many.many('HDEL', key, ids) end
  logs.forgetLogs(C, ids)
  -- A dead head that held its ordered group (holdOnDead) is gone: the group goes on (include: heads).
  if heads.dropHeads(C, ids) > 0 then wake.wakeIdle(C) end
  return { #ids, #ids < most and 1 or 0, '', 0 }
end

local done, nextCursor
if source == 'delayed' or source == 'grouped' then
  -- By score; the cursor is '<score>|<kept entries at that score>', so entries that leave
  -- meanwhile (claims promote due tasks) do not shift it.
  local key = source == 'delayed' and K.delayed or K.grouped
  local score, skip = string.match(cursor, '^(.*)|(%d+)$')
  local start = score and redis.call('ZCOUNT', key, '-inf', '(' .. score) + tonumber(skip) or 0
  local entries = redis.call('ZRANGE', key, start, start + scan - 1, 'WITHSCORES')
  local last, kept, n = score, tonumber(skip) or 0, 0
  for i = 1, #entries, 2 do
    if sweep.full(C) then break end
    n = n + 1
    if entries[i + 1] ~= last then last, kept = entries[i + 1], 0 end
    local id = entries[i]
    local meta = sweep.doomed(C, id)
    if not meta then
      kept = kept + 1
    else
      redis.call('ZREM', key, id)
      -- As cancel: a grouped task leaving unclaimed lets its group's first parked task in.
      if source == 'grouped' then groups.refill(C, meta.g) end
      sweep.drop(C, id, meta)
    end
  end
  done, nextCursor = n == #entries / 2 and n < scan, last and (last .. '|' .. kept) or ''
elseif source == 'parked' then
  local members = redis.call('ZRANGEBYLEX', K.parked, cursor == '' and '-' or '(' .. cursor, '+', 'LIMIT', 0, scan)
  local last, n = cursor, 0
  for i = 1, #members do
    if sweep.full(C) then break end
    n = n + 1
    last = members[i]
    local id = string.match(last, '|([^|]*)$')
    local meta = sweep.doomed(C, id)
    -- Gone from `parked` since the read: a held head dropped just before let it back into
    -- `grouped`, whose walk comes next.
    if meta and redis.call('ZREM', K.parked, last) == 1 then sweep.drop(C, id, meta) end
  end
  done, nextCursor = n == #members and n < scan, last
else
  -- A ready list: entries to go are overwritten in place and removed by one LREM from the head,
  -- which stops at the last of them, so the list keeps its order and no entry costs an LREM.
  local level = tonumber(string.match(source, '^ready(%d)$'))
  local key = level and K['ready' .. level] or K.ready
  local start = tonumber(cursor) or 0
  local ids = redis.call('LRANGE', key, start, start + scan - 1)
  local marked = 0
  -- An entry a priority change left behind goes as any cleaned entry does, but its task (ready
  -- under its new level, or active, or gone) is not this entry's to delete (include: levels).
  local ghosts = redis.call('EXISTS', K.moved) == 1
  local n = 0
  for i = 1, #ids do
    if sweep.full(C) then break end
    n = n + 1
    if ghosts and levels.unghost(C, K.moved, level or 0, ids[i]) then
      redis.call('LSET', key, start + i - 1, TOMB)
      marked = marked + 1
    else
      local meta = sweep.doomed(C, ids[i])
      if meta then
        redis.call('LSET', key, start + i - 1, TOMB)
        marked = marked + 1
        sweep.drop(C, ids[i], meta)
      end
    end
  end
  if marked > 0 then redis.call('LREM', key, marked, TOMB) end
  done, nextCursor = n == #ids and n < scan, tostring(start + n - marked)
end

if C.stepped then
  -- The tasks that waited on them learn now (a batch; the client carries on with the rest).
  settle.drain(C, 100, now, cap)
end
if C.stepped or sweep.refilledCount(C) > 0 then wake.wakeIdle(C) end
return { sweep.deletedCount(C), done and 1 or 0, nextCursor, deps.toCarry(C) and 1 or 0 }
