--[[ page: included by list (not a script itself). A page of entries taken across the sources a
  state is made of (the ready lists in claim order, one ZSET for the others), in the call's table
  C.page: `skip` and `want`, what is left to skip and to take; `picked`, { id, score, ... } taken
  so far ('' where there is no score; a ready list's level, for the ghost check); `total`, the
  entries of every source seen. ]]
local page = {}

function page.start(C, skip, want) C.page = { skip = skip, want = want, picked = {}, total = 0 } end

-- A slice of source `key` from `from` to `to`: a ZSET with its scores (`reverse`: highest first);
-- with `cmd` (LRANGE or ZRANGE), bare ids, each given `level` (or '') in the score's slot and, for
-- the parked ZSET (`parked`), cut from its member ('<tag>|<id>': ids hold no '|').
local function slice(key, from, to, how)
  if not how.cmd then return redis.call(how.reverse and 'ZREVRANGE' or 'ZRANGE', key, from, to, 'WITHSCORES') end
  local out = {}
  for _, m in ipairs(redis.call(how.cmd, key, from, to)) do
    table.insert(out, how.parked and string.match(m, '([^|]*)$') or m); table.insert(out, how.level or '')
  end
  return out
end

-- Takes what the page still wants from one source of `size` entries, after what it still skips.
function page.pick(C, size, key, how)
  local p = C.page
  p.total = p.total + size
  if p.want <= 0 or p.skip >= size then p.skip = math.max(0, p.skip - size); return end
  local got = slice(key, p.skip, math.min(size, p.skip + p.want) - 1, how)
  p.skip = 0
  for i = 1, #got, 2 do table.insert(p.picked, got[i]); table.insert(p.picked, got[i + 1]); p.want = p.want - 1 end
end

-- The first `most` bytes of a payload (0: all), so a page of 500 KB payloads costs a few KB (the
-- dashboard refreshes every 2 s). The cut backs up past continuation bytes (0x80-0xBF), so it
-- never splits a character and the client decodes clean UTF-8.
function page.head(most, payload)
  if most == 0 or #payload <= most then return payload end
  local cut = most
  while cut > 0 and string.byte(payload, cut + 1) >= 0x80 and string.byte(payload, cut + 1) < 0xC0 do cut = cut - 1 end
  return string.sub(payload, 1, cut)
end
