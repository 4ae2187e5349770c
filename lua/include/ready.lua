--[[ ready: included by the scripts that queue or unqueue ready tasks (not a script itself). A
  ready task waits in one of two places: a task of a fair group in `grouped` (include: groups),
  any other in its priority level's list (include: levels). push and unqueue choose between them,
  so no script needs to know which. ]]
-- include: levels, groups
local ready = {}

-- Queues a ready task: at the tail of its level or lane, or at the head (for a group: the current
-- round) for a task handed back unfinished.
function ready.push(C, id, meta, head)
  if meta.g then groups.pushGroup(C, id, meta, head) else levels.pushLevel(C, id, meta, head) end
end

-- Takes a ready task out of wherever it waits (cancel, reschedule, priority, a put that replaces
-- it), in O(log N): a grouped or parked task's member goes; an ungrouped one's list entry stays as
-- a ghost (include: levels), since finding it in the list would be O(N). `moved` is the including
-- script's key. Returns 1, or 0 for a grouped task found in neither place.
function ready.unqueue(C, id, meta, moved)
  if meta.g then return groups.unqueueGroup(C, id, meta) end
  levels.ghost(C, moved, meta.p or 0, id)
  return 1
end
