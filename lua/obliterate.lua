#!lua flags=allow-oom
--[[ obliterate: delete every key of a queue (every suffix of lib/keys.ts), unless tasks of it are
  leased and force is not given. UNLINK, not DEL: Redis frees a large hash or sorted set (a million
  tasks) in a background thread, so this call takes as long as 44 key look-ups, whatever the
  queue holds. The registry of queue names (outside the queue's hash tag) is the caller's.
  KEYS[1]  <prefix>:{<queue>}:data           HASH
  KEYS[2]  <prefix>:{<queue>}:meta           HASH
  KEYS[3]  <prefix>:{<queue>}:delayed        ZSET
  KEYS[4]  <prefix>:{<queue>}:ready          LIST
  KEYS[5]  <prefix>:{<queue>}:active         ZSET  member = task id, score = lease deadline (ms): counted before anything goes
  KEYS[6]  <prefix>:{<queue>}:dead           ZSET
  KEYS[7]  <prefix>:{<queue>}:counts         HASH
  KEYS[8]  <prefix>:{<queue>}:wake           LIST
  KEYS[9]  <prefix>:{<queue>}:acked          ZSET
  KEYS[10] <prefix>:{<queue>}:workers        ZSET
  KEYS[11] <prefix>:{<queue>}:held           ZSET
  KEYS[12] <prefix>:{<queue>}:schedules      HASH
  KEYS[13] <prefix>:{<queue>}:occurred       HASH
  KEYS[14] <prefix>:{<queue>}:levels         ZSET
  KEYS[15] <prefix>:{<queue>}:ready1         LIST
  KEYS[16] <prefix>:{<queue>}:ready2         LIST
  KEYS[17] <prefix>:{<queue>}:ready3         LIST
  KEYS[18] <prefix>:{<queue>}:ready4         LIST
  KEYS[19] <prefix>:{<queue>}:ready5         LIST
  KEYS[20] <prefix>:{<queue>}:ready6         LIST
  KEYS[21] <prefix>:{<queue>}:ready7         LIST
  KEYS[22] <prefix>:{<queue>}:ready8         LIST
  KEYS[23] <prefix>:{<queue>}:ready9         LIST
  KEYS[24] <prefix>:{<queue>}:grouped        ZSET
  KEYS[25] <prefix>:{<queue>}:gtags          HASH
  KEYS[26] <prefix>:{<queue>}:parked         ZSET
  KEYS[27] <prefix>:{<queue>}:gactive        HASH
  KEYS[28] <prefix>:{<queue>}:glimits        HASH
  KEYS[29] <prefix>:{<queue>}:paused         STRING
  KEYS[30] <prefix>:{<queue>}:events         STREAM
  KEYS[31] <prefix>:{<queue>}:results        HASH
  KEYS[32] <prefix>:{<queue>}:kept           ZSET
  KEYS[33] <prefix>:{<queue>}:progress       HASH
  KEYS[34] <prefix>:{<queue>}:windows        ZSET
  KEYS[35] <prefix>:{<queue>}:waiting        HASH
  KEYS[36] <prefix>:{<queue>}:limits         HASH
  KEYS[37] <prefix>:{<queue>}:rates          ZSET
  KEYS[38] <prefix>:{<queue>}:gheld          ZSET
  KEYS[39] <prefix>:{<queue>}:blocked        ZSET
  KEYS[40] <prefix>:{<queue>}:after          ZSET
  KEYS[41] <prefix>:{<queue>}:dependents     ZSET
  KEYS[42] <prefix>:{<queue>}:deplist        HASH
  KEYS[43] <prefix>:{<queue>}:settle         LIST
  KEYS[44] <prefix>:{<queue>}:outbox         ZSET
  KEYS[45] <prefix>:{<queue>}:logs           HASH
  KEYS[46] <prefix>:{<queue>}:moved          HASH
  ARGV[1] force  1 to delete even while tasks are leased, else 0
  Returns: { 'ok', keys deleted } or { 'active', leased tasks } (then nothing was deleted) ]]
if ARGV[1] ~= '1' then
  local leased = redis.call('ZCARD', KEYS[5])
  if leased > 0 then return { 'active', leased } end
end
return { 'ok', redis.call('UNLINK', unpack(KEYS)) }
