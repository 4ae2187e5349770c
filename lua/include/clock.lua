--[[ clock: included by every script that reads the time. docket's only clock is the Redis
  server's: run-ats, lease deadlines, expiries and windows are all stored and compared in its epoch
  milliseconds, so clients' clocks can drift without effect (docs/design.md#the-clock). ]]
local clock = {}

-- The Redis server's time in epoch ms, read once per call: kept as C.now, the clock the library's
-- modules read, so that every step of one call sees the same instant.
function clock.now(C)
  local t = redis.call('TIME')
  C.now = t[1] * 1000 + math.floor(t[2] / 1000)
  return C.now
end
