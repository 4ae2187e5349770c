#!lua flags=allow-oom
--[[ rekey: move a queue's until-start pointers from `waiting`, where docket 0.1 kept them, to
  `redirects`, so a queue upgraded in place goes on de-duplicating the until-start tasks put while
  their twin ran (include: identity reads the pointers). One call, so no put sees half of them
  moved. createScheduler (lib/redis/layout.ts) calls it on each queue that has `waiting`.
  KEYS (as K.<name>; each described in docs/design.md#keys): waiting, redirects
  Returns: how many pointers `waiting` held (0: none, and nothing written) ]]
-- include: many
-- HGETALL, not RENAME or HSETNX: a restricted ACL user already has it (lib/redis/access.ts), and
-- the hash is small, one field per until-start task that waits away from its base id.
local fields = redis.call('HGETALL', K.waiting)
if #fields == 0 then return 0 end
if redis.call('EXISTS', K.redirects) == 0 then
  many.many('HSET', K.redirects, fields)
else
  -- A 0.1 process wrote after an upgraded one. Where both name a base, the pointer the current
  -- layout holds stays: it is the one that version keeps up to date from now on.
  for i = 1, #fields, 2 do
    if redis.call('HEXISTS', K.redirects, fields[i]) == 0 then redis.call('HSET', K.redirects, fields[i], fields[i + 1]) end
  end
end
redis.call('DEL', K.waiting)
return #fields / 2
