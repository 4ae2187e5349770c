--[[ options: included by put (through gather and occurrences; not a script itself). One task's
  put options (the item's `options` slot): '' for the defaults (due now, normal priority, no
  expiry, de-dup on the payload, until done, keep), else a JSON object of the options given, by
  short name (lib/life/put.ts, optionsJson): d delay in ms after the server's now, a at (epoch ms),
  p priority level 1-9, x expire in ms after run-at, m maxAttempts, g group, tr the producer's
  encoded trace context, kr how long (ms) the outcome is kept once the task finishes, md mode
  letters (s unique until-start, r onDuplicate replace, d debounce), w the de-dup window (ms), to
  how long one attempt may run (ms), nm the task's name (part of its identity), k the de-dup key,
  kp what the queue keeps once the task finishes (put's `keep`: dc, da the done count and age,
  include: history; xc, xa the dead ones, include: deadcaps), sc the schedule that puts it outside its occurrences (runScheduleNow). An
  occurrence put (A.schedule, include: occurrences) names its schedule too: o.schedule, for the
  record. One format, decoded once per task by cjson
  (Redis's own), with no field order to keep in step. ]]

local DEFAULTS = { level = 0, attempts = tonumber(A.maxAttempts), group = '', trace = '', key = '', mode = '', name = '' }
-- The schedule whose occurrences this call puts, or nil (a plain put).
local SCHEDULE = A.schedule ~= '' and A.schedule or nil
-- The options of one task, defaults filled in.
local function parse(options)
  if options == '' then return DEFAULTS end
  local o = cjson.decode(options)
  return { delay = o.d, at = o.a, level = o.p or 0, expire = o.x, attempts = o.m or DEFAULTS.attempts, group = o.g or '',
    trace = o.tr or '', keep = o.kr, mode = o.md or '', window = o.w, timeout = o.to, name = o.nm or '', key = o.k or '',
    caps = o.kp, schedule = o.sc or SCHEDULE }
end
