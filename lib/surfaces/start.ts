/**
 * Starting a scheduler: createScheduler's options, and what happens before the first call can be
 * made: the options checked, the connection opened, the server's settings and the ACL checked,
 * the hash function readied and the key layout migrated. Apart from the scheduler object because
 * all of it runs once, and a start that fails must leave no connection behind.
 */
import { checkAccess } from '../redis/access';
import { checkServer } from '../redis/checks';
import { connect, type ClientOptions, type RedisLike } from '../redis/connection';
import { Context } from '../redis/context';
import { migrateLayout } from '../redis/layout';
import { Scripts } from '../redis/scripts';
import { ValidationError } from '../domain/errors';
import { Keyring } from '../domain/crypto';
import { queueKeys } from '../domain/keys';
import { createHash128, type HashFunction } from '../domain/hashing';
import { checkLogger, type Logger } from '../domain/log';
import { parse, schedulerOptions } from '../domain/options';
import { urlProblem } from '../domain/redis-url';
import type { Span } from '../domain/time';

/** Options of {@link createScheduler}: the connection, the defaults of puts, workers and queues, and the limits of input. */
export interface SchedulerOptions {
  /** Redis URL. Default `process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'`. */
  url?: string;
  /**
   * Your own client, already connected; close() leaves it open. A node-redis 4, 5 or 6 client, a
   * node-redis 4 cluster, or an ioredis 5 or 6 Redis or Cluster, which docket sends through a
   * duplicate of (docs/api.md#redis-clients). Not together with url, clientOptions or cluster.
   */
  client?: RedisLike;
  /**
   * node-redis's own client options (`createClient(options)`: TLS, username, password, database,
   * socket timeouts), for the client docket opens; with `cluster`, the options of every node.
   * `url` may be given here or beside it, not both. docket keeps its own `socket.reconnectStrategy`.
   */
  clientOptions?: ClientOptions;
  /**
   * URLs of some nodes of a Redis Cluster (`['redis://10.0.0.1:7000', ...]`): docket opens a
   * node-redis cluster client from them, and close() closes it. Not together with url or client.
   */
  cluster?: string[];
  /** Key prefix. Default `'docket'`. */
  prefix?: string;
  /** Queue used when a call names none. Default `'default'`. */
  queue?: string;
  /** Largest canonical payload accepted, in bytes. Default 512 KiB. */
  maxPayloadBytes?: number;
  /** Largest result or progress value a handler may report, in bytes of JSON. Default 64 KiB. */
  maxResultBytes?: number;
  /** Most log lines kept per task (`task.log`); the oldest go first. Default 100. */
  logMaxLines?: number;
  /** Most bytes of log kept per task (each line's JSON plus 15 bytes); the oldest lines go first. Default 64 KiB. */
  logMaxBytes?: number;
  /** Dead tasks kept per queue; the oldest beyond this are purged. Default 10,000. */
  deadMaxCount?: number;
  /** How long a dead task is kept. Default 7 days. */
  deadMaxAge?: Span;
  /**
   * Deadline of every Redis call, in ms or a Duration. A write that misses it rejects with a
   * TimeoutError: its outcome is unknown, and retrying it is safe. Default 5 s.
   */
  commandTimeout?: Span;
  /**
   * Receives start-up warnings about Redis settings that weaken docket's guarantees
   * (maxmemory-policy other than noeviction, AOF off). Default: process.emitWarning.
   */
  onWarning?: (message: string) => void;
  /**
   * Which start-up warnings to give. `aof: false` turns off the one about AOF being off, for this
   * scheduler (a service that has chosen snapshots only, a test, a demo). Default `{ aof: true }`:
   * printed by docket (no onWarning), the AOF warning comes once a day per Redis server and default
   * queue, from the first process to start; an onWarning of yours gets it at every start.
   */
  warnings?: {
    /** false: no warning about AOF being off, and no marker key written. Default true. */
    aof?: boolean;
  };
  /**
   * Replaces the identity hash (default: the built-in 128-bit xxhash). For tests only: a weak hash
   * forces collisions. When it throws, or returns anything but a non-empty string, the call that
   * hashed rejects with a {@link HashFunctionError} before any I/O.
   */
  hash?: HashFunction;
  /**
   * Payloads, results, progress and log lines stored AES-256-GCM encrypted with the first key, and
   * read with whichever listed key sealed them (rotation: list a new key first, keep the old ones
   * while values sealed with them live). Each key is 32 bytes: a Buffer or a base64 string; ids are
   * unique (1 to 64 of `A-Z a-z 0-9 _ . -`). The identity hash becomes an HMAC under the first key
   * (unless `hash` is given).
   * A scheduler without the key reads such values as "encrypted" (docs/operations.md#encryption).
   * Default: none, values are stored plain.
   */
  encryption?: {
    /** The keys, the one to seal with first. */
    keys: Array<{
      /** The key's id, stored with each value it seals: unique, 1 to 64 of `A-Z a-z 0-9 _ . -`. */
      id: string;
      /** The key: 32 bytes, as a Buffer (or Uint8Array) or a base64 string of 44 characters. */
      key: Buffer | Uint8Array | string;
    }>;
  };
  /** Entries kept in each queue's events stream (trimmed approximately); 0 for none. Default 10,000. */
  eventsMaxLength?: number;
  /**
   * Which events each queue's stream gets: 'outcomes' (completed, failed, dead, ..., and paused /
   * resumed), or 'all', which adds the lifecycle events (added, active, lapsed, retrying,
   * drained) at the cost of an XADD per put and per claim. Default 'outcomes'.
   */
  events?: 'outcomes' | 'all';
  /** A logger with pino's call shape (`warn(obj, msg)`); pino itself fits. Default: log nothing. */
  logger?: Logger;
}

/**
 * Connects to Redis and readies the hash function (both start asynchronously), then makes the
 * scheduler with `make`. Whatever fails on the way closes the connection it opened.
 */
export async function start<S>(options: SchedulerOptions, make: (ctx: Context, warn: (message: string) => void) => S): Promise<S> {
  const { logger, ...rest } = options;
  const log = checkLogger(logger, 'options.logger');
  const { hash, onWarning, encryption, ...parsed } = parse(schedulerOptions, rest, 'options');
  const keyring = encryption ? new Keyring(encryption) : null;
  const { client, clientOptions, cluster } = parsed;
  const url = parsed.url ?? (clientOptions?.url === undefined ? envUrl() : undefined) ?? 'redis://127.0.0.1:6379';
  const conn = await connect({ url, cluster, client, clientOptions });
  const warn = onWarning ?? ((message: string) => process.emitWarning(message, 'DocketWarning'));
  try {
    const keys = queueKeys(parsed.prefix, parsed.queue);
    await checkServer(conn, { firstKey: keys.tasks, marker: keys.warned, aof: parsed.warnings.aof, daily: !onWarning, timeoutMs: parsed.commandTimeout }, warn);
    const identity = hash ?? keyring?.hash() ?? (await createHash128());
    const ctx = new Context(conn, new Scripts(conn, parsed.commandTimeout), parsed, identity, log, keyring);
    ctx.unblock = (await checkAccess(ctx, warn)).unblock;
    await migrateLayout(ctx);
    return make(ctx, warn);
  } catch (err) {
    // A scheduler that cannot start leaves no connection behind.
    await conn.close();
    throw err;
  }
}

/** REDIS_URL, checked as options.url is. */
function envUrl(): string | undefined {
  const url = process.env.REDIS_URL;
  if (url === undefined || url === '') return undefined;
  const problem = urlProblem(url);
  if (problem) throw new ValidationError('REDIS_URL', problem);
  return url;
}
