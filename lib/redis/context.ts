/**
 * What the scheduler's parts share: the connection, the scripts, validated options, key names.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { inspect } from 'node:util';
import type { Connection } from './connection';
import type { Keyring } from '../domain/crypto';
import type { HashFunction } from '../types/scheduler-options';
import { SILENT } from '../domain/log';
import type { Logger } from '../types/log';
import { queueKeys, type QueueKeys } from '../domain/keys';
import { parse, queueOptions, queueName, type ParsedSchedulerOptions } from '../domain/options';
import type { Scripts } from './scripts';
import { time } from '../ops/commands/server';
import { routed } from '../ops/commands/via';

export class Context {
  private readonly keyCache = new Map<string, QueueKeys>();
  /** Queues this process has added to the registry of queue names (admin.ts). */
  readonly registered = new Set<string>();
  /** The shard queues of this scheduler's sharded() queues, each to the sharded queue's name (taskId). */
  private readonly shardOf = new Map<string, string>();
  /** Whether the Redis user may run CLIENT UNBLOCK (access.ts); without it idle waits time out on their own. */
  unblock = true;

  constructor(
    readonly conn: Connection,
    readonly scripts: Scripts,
    readonly options: ParsedSchedulerOptions,
    /** The identity hash: the caller's (options.hash) or the default; null for the keyring's (Keyring.taskId). */
    private readonly hash: HashFunction | null,
    readonly log: Logger = SILENT,
    /** The keys of options.encryption, or null: values are stored plain. */
    readonly keyring: Keyring | null = null,
  ) {}

  /**
   * What inspect() (and so a logger, or a REPL) shows of a scheduler or worker: never the options,
   * whose URL or client holds the Redis password.
   */
  [inspect.custom](): string {
    return `Context { prefix: ${JSON.stringify(this.options.prefix)}, queue: ${JSON.stringify(this.options.queue)} }`;
  }

  /**
   * The id of a task of `queue` whose identity (hashing.ts, identityOf) is `identity`. Under
   * encryption it is the keyring's keyed hash, bound to the prefix and the queue, so equal data in
   * two queues or prefixes gets unrelated ids; otherwise the hash of the identity alone. A shard
   * queue of sharded(name) is bound as `name`: the id picks the shard (shards.ts), so it cannot
   * depend on the shard it picks.
   */
  taskId(queue: string, identity: string): string {
    return this.hash ? this.hash(identity) : this.keyring!.taskId(this.options.prefix, this.shardOf.get(queue) ?? queue, identity);
  }

  /** Records `queues` as the shards of sharded queue `name`, for taskId. */
  shards(name: string, queues: readonly string[]): void {
    for (const queue of queues) this.shardOf.set(queue, name);
  }

  /** The keys of `queue` (named by the caller: queueOf() picks the default queue), built once per queue. */
  keys(queue: string): QueueKeys {
    let keys = this.keyCache.get(queue);
    if (!keys) {
      keys = queueKeys(this.options.prefix, queue);
      this.keyCache.set(queue, keys);
    }
    return keys;
  }

  /** The queue named in `{ queue }` options (validated), or the default one. */
  queueOf(options: unknown, field = 'options'): string {
    return parse(queueOptions, options ?? {}, field).queue ?? this.options.queue;
  }

  /** Validates a queue name given directly. */
  checkQueue(queue: unknown, field: string): string {
    return parse(queueName, queue, field);
  }
}

/**
 * Each scheduler's Context, by the scheduler: for in-library readers of keys the Scheduler
 * interface has no method for (the dashboard's live workers and parked tasks). A WeakMap, so it
 * holds no scheduler alive and adds nothing to the public API.
 */
const contexts = new WeakMap<object, Context>();

/** Records `ctx` as the Context of `owner` (a scheduler); createScheduler calls it once per scheduler. */
export function bindContext(owner: object, ctx: Context): void {
  contexts.set(owner, ctx);
}

/** The Context of a scheduler made by createScheduler, or undefined for any other object. */
export function contextOf(owner: object): Context | undefined {
  return contexts.get(owner);
}

/** A worker id names the holder of a lease: which host and process, plus a random part. */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** Random bytes for lease tokens, drawn 8 at a time: one randomBytes call per 256 tokens. */
let tokenBytes = Buffer.alloc(0);
let tokenAt = 0;

/**
 * A fresh random lease-token prefix (16 hex digits); claim.lua appends the task's index. Cut from
 * a pool of random bytes, so that a claim call does not make a randomBytes call of its own.
 */
export function newToken(): string {
  if (tokenAt + 8 > tokenBytes.length) {
    tokenBytes = randomBytes(2048);
    tokenAt = 0;
  }
  tokenAt += 8;
  return tokenBytes.toString('hex', tokenAt - 8, tokenAt);
}

/**
 * The Redis server's clock (epoch ms), read on the node that owns `key`: on a cluster, the clock
 * that key's scripts read. Every run-at, lease and event time is on it, never on this process's.
 */
export async function serverTime(ctx: Context, key: string, what: string): Promise<number> {
  return time(routed(ctx.conn, key, { ms: ctx.options.commandTimeout, what }));
}
