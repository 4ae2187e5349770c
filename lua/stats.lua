#!lua flags=no-writes
--[[ stats: count a queue's tasks by state, plus its lifetime counters, in one consistent view.
  KEYS (as K.<name>; each described in docs/design.md#keys): ready, delayed, active, dead, counts,
    levels, ready1, ready2, ready3, ready4, ready5, ready6, ready7, ready8, ready9, grouped, gtags,
    parked, gactive, glimits, paused, blocked, moved, gpaused
  Returns: { ready, delayed, active, dead, waiting, paused (1|0), paused groups (n), then the n
    paused groups' names (gpause.lua), then counter name, count, ... } ]]
-- Ready tasks wait in the level-0 list, the nine priority-level lists and the grouped set.
local readyCount = redis.call('LLEN', K.ready)
for level = 1, 9 do readyCount = readyCount + redis.call('LLEN', K['ready' .. level]) end
-- Tasks parked while their group is at its limit are ready too: only the limit holds them.
readyCount = readyCount + redis.call('ZCARD', K.grouped) + redis.call('ZCARD', K.parked)
-- Ghosts (entries left behind by cancels, reschedules, priority changes) are not tasks (include: levels).
readyCount = readyCount - (tonumber(redis.call('HGET', K.moved, '')) or 0)
local out = {
  readyCount, redis.call('ZCARD', K.delayed),
  redis.call('ZCARD', K.active), redis.call('ZCARD', K.dead), redis.call('ZCARD', K.blocked),
  redis.call('EXISTS', K.paused),
}
-- Paused groups are few (an operator's kill switches): listed whole. A HASH (group -> 1), not a
-- SET, so a restricted Redis user needs no command beyond the ones docket already asks for.
local pausedGroups = redis.call('HGETALL', K.gpaused)
table.insert(out, #pausedGroups / 2)
for i = 1, #pausedGroups, 2 do table.insert(out, pausedGroups[i]) end
for _, v in ipairs(redis.call('HGETALL', K.counts)) do table.insert(out, v) end
return out
