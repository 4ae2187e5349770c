--[[ limits: included by claim (not a script itself). A queue's own limits live in the `limits` HASH
  (C.K.limits), set by cap.lua: 'concurrency' (most tasks leased at once), 'rate' and 'per' (at
  most `rate` claims in any `per` ms), 'until' (no claim before this time: backoffQueue), and the
  rate limits of groups: 'rate|<group>' and 'per|<group>' for one group, 'grate' and 'gper' for
  every group without its own. A grouped task whose group has no rate room is parked (include:
  levels) and its group noted in the `gheld` ZSET (C.K.gheld) at the time its window reopens;
  a claim from then on moves back as many of its parked tasks as the rate allows, so other groups
  are never held up and nobody polls.
  The rate is a sliding log on the Redis clock: the `rates` ZSET (C.K.rates) holds one member per
  recent lease, '|' .. 16-digit lease time .. '|' .. lease token, all with score 0, so members sort
  by time and a lex range counts or trims them (the leading '|' is the queue's scope; a group's
  scope can come before it later). A lease at time t counts while now - t < per: any span of `per`
  ms then holds at most `rate` leases; a group's leases carry the group's name before the '|'. The
  including script names limits, rates and gheld among its keys (C.K.limits, C.K.rates, C.K.gheld). ]]
-- include: groups
local limits = {}

function limits.stamp(ms) return string.format('|%016d|', ms) end

-- How many of `count` leases the queue's limits allow now (after lapsed leases were re-queued),
-- whether that is fewer (capped), and, when it is none, when to look again (nil: at the next
-- run-at or lease end, as without limits).
function limits.allowed(C, count, now)
  local l = redis.call('HMGET', C.K.limits, 'concurrency', 'rate', 'per', 'until')
  local most, rate, per, hold = tonumber(l[1]), tonumber(l[2]), tonumber(l[3]), tonumber(l[4])
  if hold and hold > now then return 0, true, hold end
  local capped = false
  if most then
    local room = most - redis.call('ZCARD', C.K.active)
    if room <= count then count, capped = math.max(0, room), true end
  end
  if rate and per and count > 0 then
    redis.call('ZREMRANGEBYLEX', C.K.rates, '[|', '(' .. limits.stamp(now - per + 1))
    local room = rate - redis.call('ZLEXCOUNT', C.K.rates, '[|', '(|~')
    if room <= 0 then
      local oldest = redis.call('ZRANGEBYLEX', C.K.rates, '[|', '(|~', 'LIMIT', 0, 1)[1]
      return 0, true, tonumber(string.sub(oldest, 2, 17)) + per
    end
    if room <= count then count, capped = room, true end
  end
  return count, capped, nil
end

-- A group's rate limit { max, per }, or nil: its own, else the one of every group. Read once per
-- group and call (C.groupRates).
function limits.rateOf(C, g)
  if not C.groupRates then C.groupRates = {} end
  local groupRates = C.groupRates
  if groupRates[''] == nil then
    local l = redis.call('HMGET', C.K.limits, 'grate', 'gper')
    groupRates[''] = tonumber(l[1]) and { tonumber(l[1]), tonumber(l[2]) } or false
  end
  if groupRates[g] == nil then
    local l = redis.call('HMGET', C.K.limits, 'rate|' .. g, 'per|' .. g)
    groupRates[g] = tonumber(l[1]) and { tonumber(l[1]), tonumber(l[2]) } or groupRates['']
  end
  return groupRates[g] or nil
end

-- Leases of each group in its window, this call's included (C.groupUsed).
-- Whether group g may take one more lease now (then it is counted); else nil and when it may.
function limits.groupRoom(C, g, now)
  if not C.groupUsed then C.groupUsed = {} end
  local groupUsed = C.groupUsed
  local r = limits.rateOf(C, g)
  if not r then return true end
  local from, to = '[' .. g .. '|', '(' .. g .. '|~'
  if groupUsed[g] == nil then
    redis.call('ZREMRANGEBYLEX', C.K.rates, from, '(' .. g .. limits.stamp(now - r[2] + 1))
    groupUsed[g] = redis.call('ZLEXCOUNT', C.K.rates, from, to)
  end
  if groupUsed[g] < r[1] then
    groupUsed[g] = groupUsed[g] + 1
    return true
  end
  local oldest = redis.call('ZRANGEBYLEX', C.K.rates, from, to, 'LIMIT', 0, 1)[1]
  return nil, oldest and tonumber(string.sub(oldest, #g + 2, #g + 17)) + r[2] or now + r[2]
end

-- Groups whose rate window has reopened get back as many parked tasks as their rate has room for
-- now; a group with more parked is held again until the window's oldest lease ages out (by then
-- this claim may have filled it). A group whose limit is gone gets all of them back.
function limits.reopen(C, now)
  if not C.groupUsed then C.groupUsed = {} end
  local groupUsed = C.groupUsed
  for _, g in ipairs(redis.call('ZRANGEBYSCORE', C.K.gheld, '-inf', now, 'LIMIT', 0, 100)) do
    redis.call('ZREM', C.K.gheld, g)
    local r = limits.rateOf(C, g)
    if not r then
      groups.unpark(C, g)
    else
      local from, to = '[' .. g .. '|', '(' .. g .. '|~'
      redis.call('ZREMRANGEBYLEX', C.K.rates, from, '(' .. g .. limits.stamp(now - r[2] + 1))
      groupUsed[g] = redis.call('ZLEXCOUNT', C.K.rates, from, to)
      if r[1] > groupUsed[g] then groups.unpark(C, g, r[1] - groupUsed[g]) end
      if #redis.call('ZRANGEBYLEX', C.K.parked, '[' .. g .. '|', '(' .. g .. '}', 'LIMIT', 0, 1) > 0 then
        local oldest = redis.call('ZRANGEBYLEX', C.K.rates, from, to, 'LIMIT', 0, 1)[1]
        redis.call('ZADD', C.K.gheld, (oldest and tonumber(string.sub(oldest, #g + 2, #g + 17)) or now) + r[2], g)
      end
    end
  end
end

-- Records the leases made now under rate limits: the queue's (if any) and each group's.
function limits.counted(C, tokens, ofGroup, now)
  local per = tonumber(redis.call('HGET', C.K.limits, 'per')) or 0
  local members = {}
  for i, token in ipairs(tokens) do
    if per > 0 then table.insert(members, 0); table.insert(members, limits.stamp(now) .. token) end
    local r = ofGroup[i] and limits.rateOf(C, ofGroup[i])
    if r then
      table.insert(members, 0); table.insert(members, ofGroup[i] .. limits.stamp(now) .. token)
      per = math.max(per, r[2])
    end
  end
  if #members == 0 then return end
  redis.call('ZADD', C.K.rates, unpack(members))
  -- The log goes by itself once the queue has been quiet for its longest window.
  redis.call('PEXPIRE', C.K.rates, per)
end
