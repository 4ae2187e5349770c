--[[ identity: included by the scripts that look up a task by its de-dup identity (not a script
  itself). A task's id is its identity's hash, the base; a collision (another identity with the
  same hash) probes base-1, base-2, ... An `until-start` task (meta.us) releases its identity once
  leased: a leased or dead until-start record no longer matches, so a put of the same data adds a
  new task, at the next free id. When that id is not the base, the `redirects` HASH (C.K.redirects)
  points from the base to it (and the task carries meta.b = base) until it is leased or leaves, so
  a later lookup finds it even after the base's record is gone.
  It reads C.K.tasks, C.K.dead and C.K.redirects, and a record's payload as meta._ (include: record);
  put fills `pending` with the tasks it is adding in the same call (remember). ]]
-- include: record
local identity = {}

-- Whether K.redirects exists, read once per call and kept in C.redirectsKnown (nil: not read yet); a
-- caller that has read it already says so (knowRedirects).
function identity.knowRedirects(C, known) C.redirectsKnown = known end

-- A task this call is adding or replacing, in flush batch `batch` (include: gather): a lookup in
-- the same call finds it before its record is written.
function identity.remember(C, id, meta, batch)
  if not C.pending then C.pending = {} end
  C.pending[id] = { meta = meta, batch = batch }
end
-- What remember() holds of task id this call ({ meta, batch }), or nil.
function identity.pending(C, id) return C.pending and C.pending[id] end

-- Whether a record's identity is released: an until-start task once leased (active, or dead).
function identity.released(C, id, meta)
  return meta.us ~= nil and (meta.t ~= nil or redis.call('ZSCORE', C.K.dead, id) ~= false)
end

-- Whether stored payloads a and b hold the same data. Under encryption each put seals its payload
-- with a fresh nonce (lib/domain/crypto.ts), so two seals of the same data differ after the
-- `enc:v2:<key id>:<mac>:` that heads them; that head (the MAC of the data in this queue, under the
-- same key) is what is compared. Only reached on a record at the id: a new id costs nothing.
function identity.sameData(a, b)
  if a == b then return true end
  if type(a) ~= 'string' or type(b) ~= 'string' or string.sub(a, 1, 7) ~= 'enc:v2:' or string.sub(b, 1, 7) ~= 'enc:v2:' then return false end
  local id = string.find(a, ':', 8, true)
  local mac = id and string.find(a, ':', id + 1, true)
  return mac ~= nil and string.sub(a, 1, mac) == string.sub(b, 1, mac)
end

-- Whether the record at id (meta, its payload in meta._) is the identity name + payload/key.
-- Same hash is not same task: the identity itself is compared, so a collision is stored apart.
function identity.matches(meta, payload, key, name)
  if (meta.nm or '') ~= name then return false end
  if key ~= '' then return meta.k == key end
  if meta.k ~= nil then return false end
  return identity.sameData(meta._, payload)
end

-- The live record of this identity (id, meta), skipping `self` and released ones; else a free id
-- and nil. `raw` is the base's meta when the caller has read it already (false: none), else nil.
function identity.find(C, base, payload, key, name, raw, self)
  local pending = C.pending or {}
  if C.redirectsKnown == nil then C.redirectsKnown = redis.call('EXISTS', C.K.redirects) == 1 end
  if C.redirectsKnown then
    local w = redis.call('HGET', C.K.redirects, base)
    local r = w and w ~= self and (pending[w] and true or redis.call('HGET', C.K.tasks, w))
    if r then
      local p = pending[w]
      local meta = p and p.meta or record.decode(r)
      if identity.matches(meta, payload, key, name) and not identity.released(C, w, meta) then return w, meta end
    end
  end
  local n = 0
  while true do
    local id = n == 0 and base or (base .. '-' .. n)
    local p = pending[id]
    if n > 0 or raw == nil then raw = redis.call('HGET', C.K.tasks, id) end
    if not p and not raw then return id, nil end
    local meta = p and p.meta or record.decode(raw)
    if id ~= self and identity.matches(meta, payload, key, name) and not identity.released(C, id, meta) then return id, meta end
    n = n + 1
  end
end

-- An until-start task that failed while another task of its identity already waits (put while
-- it ran): that one will do the same work, so this one is not queued again. Its id, else nil.
function identity.waitingCopy(C, id, meta)
  if not meta.us then return nil end
  local payload = meta.k == nil and meta._ or ''
  local other, found = identity.find(C, meta.b or id, payload, meta.k or '', meta.nm or '', nil, id)
  return found and other or nil
end

-- A task leased, or leaving unleased (cancel, expiry): it is no longer its identity's waiting copy.
function identity.unpoint(C, id, meta)
  if meta.b and redis.call('HGET', C.K.redirects, meta.b) == id then redis.call('HDEL', C.K.redirects, meta.b) end
end

-- A task away from its base waits again (a retry): it is its identity's waiting copy once more.
function identity.repoint(C, id, meta)
  if meta.b then
    redis.call('HSET', C.K.redirects, meta.b, id)
    C.redirectsKnown = true
  end
end
