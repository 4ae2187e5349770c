--[[ windows: included by put (not a script itself). A put with `dedupWindow` keeps its identity
  taken for that span after it, whatever becomes of its task: the `windows` ZSET (C.K.windows)
  holds the identity's base id, scored by when its window ends. A lookup trusts only a score
  after now, so a window ends exactly on time on the Redis clock. Storage goes as outcomes' does
  (include: outcomes): each window opened removes up to two that have ended, and the key's TTL is
  at least its longest window, so Redis deletes it once the last one ends. ]]
local windows = {}

-- A caller that has read whether C.K.windows exists says so: not read again.
function windows.knowWindows(C, known) C.windowsKnown = known end

-- When the identity's window ends, or nil when it has none open.
function windows.windowEnd(C, base)
  if C.windowsKnown == nil then C.windowsKnown = redis.call('EXISTS', C.K.windows) == 1 end
  if not C.windowsKnown then return nil end
  local ends = tonumber(redis.call('ZSCORE', C.K.windows, base))
  if ends and ends > C.now then return ends end
  return nil
end

function windows.openWindow(C, base, span)
  -- GT: an ended window not yet removed is replaced; an open one cannot be (a put that found it
  -- open was a duplicate and opens none).
  redis.call('ZADD', C.K.windows, 'GT', C.now + span, base)
  C.windowsKnown = true
  for _, ended in ipairs(redis.call('ZRANGEBYSCORE', C.K.windows, '-inf', C.now, 'LIMIT', 0, 2)) do
    redis.call('ZREM', C.K.windows, ended)
  end
  if redis.call('PTTL', C.K.windows) < span then redis.call('PEXPIRE', C.K.windows, span) end
end
