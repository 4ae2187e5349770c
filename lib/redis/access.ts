/**
 * What the Redis user may run. Redis has no rollback: a script that a restricted ACL user may
 * start but not finish (fail.lua refused its XADD after its ZREMs) leaves a task in no structure
 * at all. So createScheduler asks Redis once, in one script (redis.acl_check_cmd, Redis 7.0+),
 * whether the user may run every command docket sends on the default queue's keys, and refuses to
 * start when one is missing. docs/guarantees.md lists the same commands for operators.
 */
import { type QueueKeys, registryKey } from '../domain/keys';
import type { Context } from './context';
import { PermissionError } from '../types/errors';
import { access } from '../ops/access';

/** A command line to check: a function of the queue's keys (a key is checked against the ACL's key patterns too). */
type Line = (k: QueueKeys, registry: string) => string[];

/**
 * Every command docket cannot do without: each one its scripts call (a test compares this list
 * with lua/), FCALL and FCALL_RO that call them and FUNCTION LOAD that loads them (library.ts), the idle wait's BLPOP and CLIENT ID, and the
 * registry's SADD. Read-only extras (a put `after` a task of another queue checks that queue with
 * SMISMEMBER; events and throughput: XREAD, XRANGE, XREVRANGE, XINFO; queues(): SMEMBERS; the
 * start-up checks: CONFIG GET) are not required: without them those calls reject with a
 * PermissionError and write nothing.
 */
export const REQUIRED: Readonly<Record<string, Line>> = {
  FCALL: (k) => ['FCALL', 'docket_f', '1', k.tasks],
  FCALL_RO: (k) => ['FCALL_RO', 'docket_f', '1', k.tasks],
  'FUNCTION LOAD': () => ['FUNCTION', 'LOAD', '#!lua name=docket_f\n'],
  BLPOP: (k) => ['BLPOP', k.wake, '1'],
  'CLIENT ID': () => ['CLIENT', 'ID'],
  SADD: (_, registry) => ['SADD', registry, 'queue'],
  DEL: (k) => ['DEL', k.paused],
  EXISTS: (k) => ['EXISTS', k.paused],
  SET: (k) => ['SET', k.paused, '1', 'NX'],
  PEXPIRE: (k) => ['PEXPIRE', k.acked, '1'],
  PTTL: (k) => ['PTTL', k.results],
  TIME: () => ['TIME'],
  HDEL: (k) => ['HDEL', k.tasks, 'f'],
  HEXISTS: (k) => ['HEXISTS', k.schedules, 'f'],
  HGET: (k) => ['HGET', k.tasks, 'f'],
  HGETALL: (k) => ['HGETALL', k.counts],
  HINCRBY: (k) => ['HINCRBY', k.counts, 'f', '1'],
  HMGET: (k) => ['HMGET', k.tasks, 'f'],
  HSET: (k) => ['HSET', k.tasks, 'f', 'v'],
  HSTRLEN: (k) => ['HSTRLEN', k.logs, 'f'],
  LLEN: (k) => ['LLEN', k.ready],
  LPOP: (k) => ['LPOP', k.ready],
  LPUSH: (k) => ['LPUSH', k.ready, 'v'],
  LREM: (k) => ['LREM', k.ready, '1', 'v'],
  LRANGE: (k) => ['LRANGE', k.ready, '0', '0'],
  LSET: (k) => ['LSET', k.ready, '0', 'v'],
  UNLINK: (k) => ['UNLINK', k.paused],
  ZCOUNT: (k) => ['ZCOUNT', k.delayed, '0', '1'],
  RPUSH: (k) => ['RPUSH', k.ready, 'v'],
  ZADD: (k) => ['ZADD', k.delayed, '0', 'm'],
  ZCARD: (k) => ['ZCARD', k.delayed],
  ZMSCORE: (k) => ['ZMSCORE', k.active, 'm'],
  ZPOPMIN: (k) => ['ZPOPMIN', k.grouped],
  ZRANGE: (k) => ['ZRANGE', k.delayed, '0', '0'],
  ZRANGEBYLEX: (k) => ['ZRANGEBYLEX', k.parked, '-', '+'],
  ZRANGEBYSCORE: (k) => ['ZRANGEBYSCORE', k.delayed, '0', '1'],
  ZREM: (k) => ['ZREM', k.delayed, 'm'],
  ZREMRANGEBYSCORE: (k) => ['ZREMRANGEBYSCORE', k.acked, '0', '1'],
  ZREVRANGE: (k) => ['ZREVRANGE', k.levels, '0', '0'],
  ZSCORE: (k) => ['ZSCORE', k.delayed, 'm'],
  XREVRANGE: (k) => ['XREVRANGE', k.events, '+', '-', 'COUNT', '1'],
  ZLEXCOUNT: (k) => ['ZLEXCOUNT', k.rates, '-', '+'],
  ZREMRANGEBYLEX: (k) => ['ZREMRANGEBYLEX', k.rates, '-', '+'],
};

/**
 * Run only by lua/migrate.lua, on a queue still in the layout before one field per task: not
 * checked at start-up, so a restricted user who never had such a queue needs nothing new. Where
 * one is to migrate, createScheduler rejects with a PermissionError naming the one missing.
 */
export const MIGRATION_ONLY = ['HLEN', 'HSCAN'] as const;

/** Needed only while events are on (eventsMaxLength > 0): the outcome each script appends. */
const EVENTS: Line = (k) => ['XADD', k.events, '*', 'type', 'completed'];

/** Without it docket works, but an idle worker's timer cannot end its wait: see checkAccess. */
const UNBLOCK: Line = () => ['CLIENT', 'UNBLOCK', '1'];

export const UNBLOCK_WARNING =
  "The Redis user may not run CLIENT UNBLOCK: an idle worker's wait for a delayed task or a retry then ends by BLPOP's own timeout, " +
  'which Redis checks only hz times a second (default 10), so such tasks may start up to about 100 ms late. Allow +client|unblock to avoid it.';

/**
 * Asks Redis what the user may run, on the default queue's keys. Throws a PermissionError naming
 * every missing command; returns whether the user may run CLIENT UNBLOCK (a warning, not a
 * refusal).
 */
export async function checkAccess(ctx: Context, warn: (message: string) => void): Promise<{ unblock: boolean }> {
  const keys = ctx.keys(ctx.options.queue);
  const registry = registryKey(ctx.options.prefix);
  const named: Array<[string, Line]> = [...Object.entries(REQUIRED), ['CLIENT UNBLOCK', UNBLOCK]];
  if (ctx.options.eventsMaxLength > 0) named.push(['XADD', EVENTS]);
  const lines = named.map(([, line]) => line(keys, registry));
  // The check is itself a call of the library (FCALL_RO): a user who may not make one is told so.
  const refusals = await ctx.scripts.run(access, keys, { lines }).catch((err: unknown) => {
    if (!(err instanceof PermissionError)) throw err;
    throw new PermissionError(new Error(`the Redis user may not run FCALL_RO on ${keys.tasks}; docket calls its functions with FCALL and FCALL_RO`), ['FCALL_RO']);
  });
  if (!refusals) return { unblock: true };
  const refused: string[] = [];
  const told: string[] = [];
  let unblock = true;
  for (const { line, reason } of refusals) {
    const [name] = named[line];
    if (name === 'CLIENT UNBLOCK') {
      unblock = false;
      continue;
    }
    refused.push(name);
    told.push(`${name}${reason ? ` (${reason})` : ''}${name === 'XADD' ? ' (or set eventsMaxLength: 0)' : ''}`);
  }
  if (refused.length > 0) {
    const on = `${ctx.options.prefix}:{${ctx.options.queue}}:* and ${registry}`;
    throw new PermissionError(new Error(`the Redis user may not run ${told.join(', ')} on ${on}; docket needs every one of them`), refused);
  }
  if (!unblock) {
    try {
      warn(UNBLOCK_WARNING);
    } catch {
      // A throwing warning handler must not stop the scheduler from starting.
    }
  }
  return { unblock };
}
