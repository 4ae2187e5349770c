#!lua flags=allow-oom
--[[ ack: finish a leased task and delete it, if the caller still holds its lease (fencing).
  An ack retried with the same token (its first reply was lost) is answered 1 again.
  KEYS[1] <prefix>:{<queue>}:active  ZSET  member = task id, score = lease deadline (ms)
  KEYS[2] <prefix>:{<queue>}:data    HASH  task id -> canonical JSON payload
  KEYS[3] <prefix>:{<queue>}:meta    HASH  task id -> JSON task metadata
  KEYS[4] <prefix>:{<queue>}:acked   ZSET  member = lease token of a recent ack, score = acked-at (ms)
  KEYS[5] <prefix>:{<queue>}:held    ZSET  lex index: member = worker id .. '|' .. task id, score 0
  ARGV[1] id        task id
  ARGV[2] token     the lease token handed out by claim
  ARGV[3] remember  ms an ack's token is kept, so a retried ack is answered the same
  Returns: 1 when acked (now or by an earlier call with this token), 0 when the lease was lost ]]
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
-- Tokens are random per lease, so a remembered one can only be this very lease's ack.
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[3]))
if redis.call('ZSCORE', KEYS[4], ARGV[2]) then return 1 end
local deadline = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if not deadline or deadline <= now then return 0 end
local meta = cjson.decode(redis.call('HGET', KEYS[3], ARGV[1]))
if meta.t ~= ARGV[2] then return 0 end
-- A finished task leaves no keys behind, and its de-dup identity is free again.
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[5], meta.w .. '|' .. ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], now, ARGV[2])
-- The memory of acks goes too once a queue falls quiet.
redis.call('PEXPIRE', KEYS[4], ARGV[3])
return 1
