#!lua flags=allow-oom
--[[ keep: set how many finished tasks a queue keeps, and how long, separately for done tasks (its
  history, include: history) and dead ones. Stored in the queue's `keep` HASH, read by every claim
  that finishes or trims tasks, so each worker applies it from its next call. A cap given as ''
  stays as it was (the caller's default until set).
  KEYS (as K.<name>; each described in docs/design.md#keys): keep
  ARGV[1] doneCount  done tasks kept (0: none, history off), or ''
  ARGV[2] doneAge    ms a done task is kept, or ''
  ARGV[3] deadCount  dead tasks kept, or ''
  ARGV[4] deadAge    ms a dead task is kept, or ''
  Returns: how many caps were set ]]
local set = {}
for _, cap in ipairs({ 'doneCount', 'doneAge', 'deadCount', 'deadAge' }) do
  if A[cap] ~= '' then table.insert(set, cap); table.insert(set, A[cap]) end
end
if #set > 0 then redis.call('HSET', K.keep, unpack(set)) end
return #set / 2
