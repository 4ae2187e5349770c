--[[ sources: included by take (not a script itself): where claim's lease loop takes from, in
  order, and how it pops from one: the priority levels, the fair groups and the `ready` list
  (include: levels, groups). ]]
local sources = {}

-- Where to take from, in order: the priority levels of ungrouped tasks, highest first; then the
-- grouped tasks; then ungrouped normal tasks. Also whether some ready list holds ghosts ('m').
function sources.sourcesOf(C)
  local sources, ghosts = {}, false
  for _, level in ipairs(redis.call('ZREVRANGE', C.K.levels, 0, -1)) do
    if level == 'm' then
      ghosts = true
    elseif level == 'g' then
      table.insert(sources, { key = C.K.grouped, level = level, grouped = true })
    else
      table.insert(sources, { key = C.K['ready' .. level], level = level })
    end
  end
  table.insert(sources, { key = C.K.ready })
  return sources, ghosts
end

-- Pops up to `want` ids from a source, noting each grouped task's tag in `tags`. Returns the ids
-- (nil for none) and the last tag popped (the round claims have reached), if any.
function sources.pop(C, source, want, tags)
  if not source.grouped then return redis.call('LPOP', source.key, want), nil end
  local popped, ids, round = redis.call('ZPOPMIN', C.K.grouped, want), {}, nil
  for j = 1, #popped, 2 do
    table.insert(ids, popped[j])
    round = tonumber(popped[j + 1])
    tags[popped[j]] = round
  end
  if #ids == 0 then ids = nil end
  return ids, round
end
