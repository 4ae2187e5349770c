#!lua
--[[ priority: move a pending (ready, delayed or waiting) task to another priority level. A ready
  task leaves its place and goes to the tail of the new level (FIFO within the level), in O(log N):
  its old entry stays behind as a ghost that claims skip (include: levels); a delayed or
  waiting task keeps its place and takes the new level when it becomes ready. A task of a fair
  group keeps to its group's order: its group has two lanes, normal (level 0) and priority (every
  level above 0), so it moves, to the tail of the other lane, only when the level crosses 0.
  KEYS (as K.<name>; each described in docs/design.md#keys): delayed, ready, active, tasks, dead,
    levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags,
    parked, gactive, glimits, moved
  ARGV[1] id     task id
  ARGV[2] level  the new priority level: 0 (normal) to 9
  Returns: { 'moved' } (queued again at the tail of the new level or lane), { 'kept' } (only its
    record changed: delayed, waiting, or a grouped task that stays in its lane), { 'same' } (already
    at that level; nothing written), or a refusal (include: refusals): { 'missing' },
    { 'active', worker }, { 'dead' } ]]
-- include: record, ready, refusals
local id, level = A.id, tonumber(A.level)
local raw = redis.call('HGET', K.tasks, id)
-- Active: its worker holds it, and a retry keeps the level it had (as reschedule, refused).
local refused = refusals.refusal(C, id, raw, true)
if refused then return refused end
local meta = record.decode(raw)
local old = meta.p or 0
if old == level then return { 'same' } end
-- Queued now (not delayed, not waiting on its dependencies), and its place depends on the level:
-- an ungrouped task's list is its level's; a grouped task's lane only tells 0 from the rest.
local requeue = not meta.a and not redis.call('ZSCORE', K.delayed, id)
  and (not meta.g or (old > 0) ~= (level > 0))
-- Out of the old place first (by the old level): a grouped task's ZSET member goes; an
-- ungrouped one's old entry is left in its list as a ghost, since finding it would be O(N).
if requeue and ready.unqueue(C, id, meta, K.moved) == 0 then
  -- In no line at all (cannot happen while the invariants hold): nothing to move, nothing written.
  return { 'missing' }
end
-- As put stores it: no field for level 0.
if level > 0 then meta.p = level else meta.p = nil end
if requeue then ready.push(C, id, meta) end
redis.call('HSET', K.tasks, id, record.encode(meta))
if requeue then return { 'moved' } end
return { 'kept' }
