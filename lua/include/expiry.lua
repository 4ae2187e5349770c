--[[ expiry: the end of a task that a claim pops past its expiry (meta.e), unclaimed (included by
  take, not a script itself). Needs the includes records, identity, events, outcomes and deps
  before it. ]]
-- include: deps, records, heads, events, outcomes, controls, groups, identity
local expiry = {}

-- Drops task id (meta: its record), expired while unclaimed: deleted, with its event, kept outcome
-- and dependents told, so it never vanishes silently (the caller counts it). `grouped`: it was
-- popped from `grouped`, so its group's first parked task takes the place it leaves; it may have
-- held its ordered group's head (a retry that expired), which goes too. Returns how many parked
-- tasks moved back.
function expiry.expire(C, id, meta, grouped, now, cap)
  records.forget(C, id, meta)
  identity.unpoint(C, id, meta)
  -- The attempt field only when it had deliveries (a retry that expired): null otherwise, as ever.
  if meta.n > 0 then events.emitFor(C, cap, meta, 'type', 'expired', 'id', id, 'attempt', meta.n) else events.emitFor(C, cap, meta, 'type', 'expired', 'id', id) end
  outcomes.keepOutcome(C, id, meta, now, 'expired')
  deps.fire(C, id, meta, 'expired', now)
  if not grouped then return 0 end
  controls.unhead(C, id, meta.g)
  return groups.refill(C, meta.g)
end
