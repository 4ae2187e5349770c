#!lua flags=no-writes
--[[ access: which of the given command lines the connection's ACL user may not run. Writes
  nothing, and touches no key: redis.acl_check_cmd (Redis 7.0+) only asks the ACL, for the command
  and for the key names in its arguments, as Redis would check them had the line been run.
  KEYS (as K.<name>; each described in docs/design.md#keys): tasks
  ARGV[+1] line  one command line as a JSON array of strings, e.g. ["XADD", "<key>", "*", "f", "v"]
  Returns: the 1-based indexes of the refused lines, each with Redis's reason ('' when it is the
  ACL), flat: { index, reason, ... }; or false when this Redis has no acl_check_cmd ]]
-- include: each
if not redis.acl_check_cmd then return false end
local refused = {}
for i = 1, ITEMS do
  local ok, allowed = pcall(redis.acl_check_cmd, unpack(cjson.decode(each.item(C, i))))
  -- Not ok: Redis does not know the command or its form (an older server), so docket cannot run it either.
  if not ok or not allowed then
    table.insert(refused, i)
    table.insert(refused, ok and '' or tostring(allowed))
  end
end
return refused
