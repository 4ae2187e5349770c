--[[ windows: included by put (not a script itself). A put with `dedupWindow` keeps its identity
  taken for that span after it, whatever becomes of its task: the `windows` ZSET (K.windows)
  holds the identity's base id, scored by when its window ends. A lookup trusts only a score
  after now, so a window ends exactly on time on the Redis clock. Storage goes as outcomes' does
  (include: outcomes): each window opened removes up to two that have ended, and the key's TTL is
  at least its longest window, so Redis deletes it once the last one ends. ]]
local windowsKnown = nil
-- A caller that has read whether K.windows exists says so: not read again.
local function knowWindows(known) windowsKnown = known end

-- When the identity's window ends, or nil when it has none open.
local function windowEnd(base)
  if windowsKnown == nil then windowsKnown = redis.call('EXISTS', K.windows) == 1 end
  if not windowsKnown then return nil end
  local ends = tonumber(redis.call('ZSCORE', K.windows, base))
  if ends and ends > now then return ends end
  return nil
end

local function openWindow(base, span)
  -- GT: an ended window not yet removed is replaced; an open one cannot be (a put that found it
  -- open was a duplicate and opens none).
  redis.call('ZADD', K.windows, 'GT', now + span, base)
  windowsKnown = true
  for _, ended in ipairs(redis.call('ZRANGEBYSCORE', K.windows, '-inf', now, 'LIMIT', 0, 2)) do
    redis.call('ZREM', K.windows, ended)
  end
  if redis.call('PTTL', K.windows) < span then redis.call('PEXPIRE', K.windows, span) end
end
