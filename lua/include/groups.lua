--[[ groups: included by the scripts that queue, dequeue or remove ready tasks of fair groups
  (through include: ready), or change a group's limit (not a script itself). Tasks put with a
  `group` wait in the `grouped` ZSET, C.K.grouped, by start-time fair queueing: a task of group g is
  tagged max(V, last[g]) + 1, where V (`gtags` field '') is the tag of the last grouped task
  claimed and last[g] (`gtags` field g, C.K.gtags) the group's latest tag; claims take the lowest
  tag. So every group with tasks waiting gets one task per round whatever its backlog, a group
  that was idle joins the current round, and within a group tasks keep their order. A group's
  priority tasks (any level above 0) keep a lane of their own (field g|p), ahead of its backlog.
  While `grouped` may hold tasks, `levels` holds the member 'g' with score 0.5, so a claim finds
  out from the same read, and one that finds `grouped` empty removes it.
  Per-group limits (include: controls); `gactive` (C.K.gactive) counts each group's active tasks. A
  claim that takes a task of a group at its limit parks it in `parked` (C.K.parked), a lex-ordered
  ZSET of '<group>|<order>|<id>' members, one range read away, never met again by the claim; each
  time a task of the group leaves the active set (or a ready one leaves `grouped` unclaimed) its
  first parked task goes back into `grouped` at the tag it was parked at. A paused group's tasks
  (gpause.lua) park likewise, none going back while it is paused; an ordered group's held head
  alone goes back while it waits. ]]
-- include: controls
local groups = {}

-- The `gtags` field that holds a grouped task's lane's latest tag.
function groups.laneOf(meta)
  if (meta.p or 0) > 0 then return meta.g .. '|p' end
  return meta.g
end

-- The round and lane tags read or given in this call (C.tagged, made at its first use), so that a
-- call queueing many grouped tasks reads each once. (Claim's lease loop, which moves the round on, queues nothing.)
local function taggedOf(C)
  if not C.tagged then C.tagged = { round = nil, lanes = {} } end
  return C.tagged
end

-- The start tag of a grouped task: the current round for a task handed back, else one past the
-- later of the round and its lane's latest tag, which it becomes (the caller writes it to gtags).
function groups.tagOf(C, meta, head)
  local tagged = taggedOf(C)
  if not tagged.round then tagged.round = tonumber(redis.call('HGET', C.K.gtags, '')) or 0 end
  if head then return tagged.round end
  local lane = groups.laneOf(meta)
  if tagged.lanes[lane] == nil then tagged.lanes[lane] = tonumber(redis.call('HGET', C.K.gtags, lane)) or 0 end
  tagged.lanes[lane] = math.max(tagged.round, tagged.lanes[lane]) + 1
  return tagged.lanes[lane]
end

-- A parked task's member of `parked`: its group, then its place in the group's order (priority
-- lane first, then its tag, fixed when first parked: meta.q), then its id. Group names have no '|'.
function groups.parkedAs(id, meta)
  return meta.g .. '|' .. meta.q .. '|' .. id
end

-- Queues a grouped task in `grouped` at its start tag (a task handed back: the current round).
function groups.pushGroup(C, id, meta, head)
  local tag = groups.tagOf(C, meta, head)
  if not head then redis.call('HSET', C.K.gtags, groups.laneOf(meta), tag) end
  redis.call('ZADD', C.K.grouped, tag, id)
  -- Indexed with the levels, between level 1 and the ungrouped normal tasks.
  redis.call('ZADD', C.K.levels, 0.5, 'g')
end

-- Moves parked member m ('<group>|<order>|<id>') back into `grouped` at the tag it was parked at,
-- not the current round: every later task of its lane that waits in `grouped` has a higher tag (a
-- lane's tags rise in put order), while at the round it could tie with one, and claims break ties
-- by id. (The round never goes below it: take keeps the highest.) A held head ('!') goes back at
-- the round: nothing else of its group is leased meanwhile.
function groups.unparkMember(C, m)
  redis.call('ZREM', C.K.parked, m)
  local q, id = string.match(m, '|([^|]*)|([^|]*)$')
  redis.call('ZADD', C.K.grouped, q ~= '!' and tonumber(string.sub(q, 2)) or groups.tagOf(C, nil, true), id)
end

-- Moves up to n of group g's parked tasks (all, when n is nil) back into `grouped`, each at the
-- tag it was parked at, first parked first. Returns how many moved.
function groups.unpark(C, g, n)
  local range = { 'ZRANGEBYLEX', C.K.parked, '[' .. g .. '|', '(' .. g .. '}' }
  -- An ordered group runs one at a time: its first parked task alone goes back (all at one tag
  -- would come out in id order); a group held by its head: only the head, which parks first ('!').
  local head = controls.headOf(C, g)
  if controls.orderedGroup(C, g) then n = 1 end
  if n then table.insert(range, 'LIMIT'); table.insert(range, 0); table.insert(range, n) end
  local members = redis.call(unpack(range))
  if head and members[1] and members[1] ~= g .. '|!|' .. head then members = {} end
  for _, m in ipairs(members) do groups.unparkMember(C, m) end
  if #members > 0 then redis.call('ZADD', C.K.levels, 0.5, 'g') end
  return #members
end

-- Group g may have lost a task that would have taken one of its places (it left the active set,
-- or left `grouped` unclaimed): when below its limit, its first parked task takes the place. A
-- task too many only parks again, so erring towards moving one never loses a place.
function groups.refill(C, g)
  -- A paused group's tasks stay parked: resume (gpause.lua) brings them back.
  if controls.pausedGroup(C, g) then return 0 end
  local limit = controls.limitOf(C, g)
  if limit and (tonumber(redis.call('HGET', C.K.gactive, g)) or 0) >= limit then return 0 end
  return groups.unpark(C, g, 1)
end

-- A task left the active set (acked, failed, lapsed, handed back): its group has one less active.
-- `requeued` when the task itself went back to `grouped` ahead of the rest, so takes the place.
-- Returns how many parked tasks moved back.
function groups.finished(C, meta, requeued)
  if not meta.g then return 0 end
  if redis.call('HINCRBY', C.K.gactive, meta.g, -1) <= 0 then redis.call('HDEL', C.K.gactive, meta.g) end
  if requeued then return 0 end
  return groups.refill(C, meta.g)
end

-- Takes a ready grouped task out of `grouped`, or out of `parked` when its group's limit parked
-- it. Returns 1, or 0 when found in neither.
function groups.unqueueGroup(C, id, meta)
  local member = meta.q and groups.parkedAs(id, meta)
  -- Its place in the group's order was its tag: queued again, it gets a new one.
  meta.q = nil
  if redis.call('ZREM', C.K.grouped, id) == 1 then
    groups.refill(C, meta.g)
    return 1
  end
  return member and redis.call('ZREM', C.K.parked, member) or 0
end
