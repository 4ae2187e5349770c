--[[ options: included by put (through gather and occurrences; not a script itself). One task's
  put options (the item's `options` slot): '' for the defaults (due now, normal priority, no
  expiry, de-dup on the payload, until done, keep), else a JSON object of the options given, by
  short name (lib/life/put.ts, optionsJson): d delay in ms from the put() call, wt how long (ms)
  that put waited in its process before it was sent (include: anchor), a at (epoch ms), p priority level 1-9, x expire in ms after run-at, m maxAttempts, g group, tr the producer's
  encoded trace context, kr how long (ms) the outcome is kept once the task finishes, md mode
  letters (s unique until-start, r onDuplicate replace, d debounce), w the de-dup window (ms), to
  how long one attempt may run (ms), nm the task's name (part of its identity), k the de-dup key,
  kp what the queue keeps once the task finishes (put's `keep`: dc, da the done count and age,
  include: history; xc, xa the dead ones, include: deadcaps), sc the schedule that puts it outside its occurrences (runScheduleNow). An
  occurrence put (C.A.schedule, include: occurrences) names its schedule too: o.schedule, for the
  record. One format, decoded once per task by cjson
  (Redis's own), with no field order to keep in step. ]]
local options = {}

-- The options of a task put with none (its options ''), made once per call (C.defaults): the
-- attempts are the call's own (A.maxAttempts).
local function defaults(C)
  local d = C.defaults
  if not d then
    d = { level = 0, attempts = tonumber(C.A.maxAttempts), group = '', trace = '', key = '', mode = '', name = '' }
    C.defaults = d
  end
  return d
end
-- The options of one task, defaults filled in; `schedule`: the schedule whose occurrences the call
-- puts, or nil (a plain put).
function options.parse(C, text)
  if text == '' then return defaults(C) end
  local o = cjson.decode(text)
  local schedule = C.A.schedule ~= '' and C.A.schedule or nil
  return { delay = o.d, waited = o.wt, at = o.a, level = o.p or 0, expire = o.x, attempts = o.m or defaults(C).attempts, group = o.g or '',
    trace = o.tr or '', keep = o.kr, mode = o.md or '', window = o.w, timeout = o.to, name = o.nm or '', key = o.k or '',
    caps = o.kp, schedule = o.sc or schedule }
end
