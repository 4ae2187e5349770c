--[[ record: a task's one field in `tasks` (not a script itself): its record (meta, JSON) and its
  payload, joined by a newline. cjson escapes every newline inside a string, so the first one in
  the field ends the record, and the payload after it is stored as given. One field per task, not
  a record hash and a payload hash: a hash field costs about 70 bytes of its own before its value
  (docs/performance.md, compact storage), and a claim or an ack reads or deletes one field, not two.
  A decoded record carries its payload as `_`, so a script that changes the record writes it back
  whole (encode) without reading the field again. The record leaves out what most tasks share:
  no deliveries yet (n 0), run-at at creation (r = c) and 5 attempts (m); decode puts them back,
  as lib/domain/meta.ts does for the client. About 30 bytes less per task. A record left with its
  creation time alone (a pending task put with the defaults) is that number, not `{"c":<ms>}`:
  6 bytes less, which for a payload near the bench's moves the field down a jemalloc size class
  (docs/performance.md, memory). ]]
local record = {}

-- The attempts a record leaves out: DEFAULT_MAX_ATTEMPTS of lib/domain/domain.ts (__tests__/domain.test.ts
-- checks the two agree).
local USUAL_ATTEMPTS = 5

-- The stored record `text` as a table, with the fields it leaves out put back. A record that is not
-- an object ('{' is byte 123) is a creation time alone.
function record.usual(text)
  local meta = string.byte(text, 1) == 123 and cjson.decode(text) or { c = tonumber(text) }
  meta.n, meta.r, meta.m = meta.n or 0, meta.r or meta.c, meta.m or USUAL_ATTEMPTS
  return meta
end

-- The record in field `raw` (a string), its payload as `_`.
function record.decode(raw)
  local cut = string.find(raw, '\n', 1, true)
  local meta = record.usual(string.sub(raw, 1, cut - 1))
  meta._ = string.sub(raw, cut + 1)
  return meta
end

-- The record alone, for a script that only reads it (an ack, a refusal, a promotion): no copy of
-- the payload, which may be 512 KiB. Without `_`, encode fails loudly rather than write a record
-- without it.
function record.peek(raw)
  return record.usual(string.sub(raw, 1, string.find(raw, '\n', 1, true) - 1))
end

-- The field for `meta` (its payload in `_`).
function record.encode(meta)
  local payload, n, r, m = meta._, meta.n, meta.r, meta.m
  meta._ = nil
  if n == 0 then meta.n = nil end
  if r == meta.c then meta.r = nil end
  if m == USUAL_ATTEMPTS then meta.m = nil end
  -- (A leased record has a token: no need to walk it.)
  local alone = not meta.t and next(meta) == 'c' and next(meta, 'c') == nil
  local raw = (alone and string.format('%d', meta.c) or cjson.encode(meta)) .. '\n' .. payload
  meta._, meta.n, meta.r, meta.m = payload, n, r, m
  return raw
end

-- The record part of field `raw`, as JSON (what get, list and result answer), and its payload:
-- false for a damaged field with no newline, which the reader then reports as unreadable.
function record.split(raw)
  local cut = string.find(raw, '\n', 1, true)
  if not cut then return raw, false end
  return string.sub(raw, 1, cut - 1), string.sub(raw, cut + 1)
end
