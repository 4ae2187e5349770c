--[[ limits: included by claim (not a script itself). A queue's own limits live in the `limits` HASH
  (KEYS[LIMITS]), set by cap.lua: 'concurrency' (most tasks leased at once), 'rate' and 'per' (at
  most `rate` claims in any `per` ms), 'until' (no claim before this time: backoffQueue).
  The rate is a sliding log on the Redis clock: the `rates` ZSET (KEYS[RATES]) holds one member per
  recent lease, '|' .. 16-digit lease time .. '|' .. lease token, all with score 0, so members sort
  by time and a lex range counts or trims them (the leading '|' is the queue's scope; a group's
  scope can come before it later). A lease at time t counts while now - t < per: any span of `per`
  ms then holds at most `rate` leases. The including script sets LIMITS and RATES first. ]]
local function stamp(ms) return string.format('|%016d|', ms) end

-- How many of `count` leases the queue's limits allow now (after lapsed leases were re-queued),
-- whether that is fewer (capped), and, when it is none, when to look again (nil: at the next
-- run-at or lease end, as without limits).
local function allowed(count, now)
  local l = redis.call('HMGET', KEYS[LIMITS], 'concurrency', 'rate', 'per', 'until')
  local most, rate, per, hold = tonumber(l[1]), tonumber(l[2]), tonumber(l[3]), tonumber(l[4])
  if hold and hold > now then return 0, true, hold end
  local capped = false
  if most then
    local room = most - redis.call('ZCARD', KEYS[3])
    if room <= count then count, capped = math.max(0, room), true end
  end
  if rate and per and count > 0 then
    redis.call('ZREMRANGEBYLEX', KEYS[RATES], '[|', '(' .. stamp(now - per + 1))
    local room = rate - redis.call('ZLEXCOUNT', KEYS[RATES], '[|', '(|~')
    if room <= 0 then
      local oldest = redis.call('ZRANGEBYLEX', KEYS[RATES], '[|', '(|~', 'LIMIT', 0, 1)[1]
      return 0, true, tonumber(string.sub(oldest, 2, 17)) + per
    end
    if room <= count then count, capped = room, true end
  end
  return count, capped, nil
end

-- Records leases made now under a rate limit (ids: the lease tokens).
local function counted(tokens, now)
  local per = tonumber(redis.call('HGET', KEYS[LIMITS], 'per'))
  if not per or #tokens == 0 then return end
  local members = {}
  for _, token in ipairs(tokens) do table.insert(members, 0); table.insert(members, stamp(now) .. token) end
  redis.call('ZADD', KEYS[RATES], unpack(members))
  -- The log goes by itself once the queue has been quiet for a window.
  redis.call('PEXPIRE', KEYS[RATES], per)
end
