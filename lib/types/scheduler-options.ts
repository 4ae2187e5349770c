/**
 * createScheduler()'s options: the connection, the defaults of puts, workers and queues, and the
 * limits of input (their checks and defaults: domain/options/scheduler.ts); and the hash function
 * a caller may give it.
 */
import type { ClientOptions, RedisLike } from './client';
import type { Logger } from './log';
import type { Span } from './time';

/** Options of {@link createScheduler}: the connection, the defaults of puts, workers and queues, and the limits of input. */
export interface SchedulerOptions {
  /**
   * The Redis URL to connect to: `redis://` or `rediss://` with a host, an optional port (0 to 65535)
   * and an optional database number as its path (`/0`). A user name or password with `/ # ? @ :` or
   * `%` in it must be percent-encoded (`encodeURIComponent`). Anything else is a
   * {@link ValidationError} naming `options.url` (or `REDIS_URL`, read when createScheduler runs
   * and only when no `client`, `cluster` or `clientOptions.url` is given), whose message never quotes
   * the URL: docket checks it before node-redis, whose own "Invalid URL" error carries the whole URL,
   * password included. Ignored when `client` is given. Not together with
   * `cluster` (a ValidationError naming `options.cluster`) or `clientOptions.url` (naming
   * `options.clientOptions`). Default: `process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'`.
   */
  url?: string;
  /**
   * Your own client, already connected ({@link RedisLike}): a node-redis 4, 5 or 6 client, a
   * node-redis 4 cluster, or an ioredis 5 or 6 Redis or Cluster, which docket may send through a
   * duplicate of (docs/api.md#redis-clients). Used instead of `url`; docket never connects or quits
   * it, and close() leaves it open. Not together with `clientOptions` (a {@link ValidationError}
   * naming `options.clientOptions`) or `cluster` (naming `options.cluster`). Default: none, docket
   * opens a client of its own.
   */
  client?: RedisLike;
  /**
   * node-redis's own client options (`createClient(options)`, typed {@link ClientOptions}) for the
   * client docket opens: `username`, `password`, `database`, `name`, `socket` (`tls`, `ca`, `cert`,
   * `key`, `connectTimeout`, `keepAlive`, ...), `disableOfflineQueue` and the rest. With `cluster`,
   * they are every node's options (node-redis's cluster `defaults`). `url` may be given here or
   * beside it, not in both places (a {@link ValidationError} naming `options.clientOptions`); a URL
   * here is checked as `url` is (`options.clientOptions.url`). docket keeps two things its own:
   * `socket.reconnectStrategy` (fail the first connect fast, then retry for as long as it takes) and
   * the promise API (`legacyMode`): either is a ValidationError naming it. A `socket.connectTimeout`
   * also bounds docket's whole first connect. Not together with `client`. Default: none.
   */
  clientOptions?: ClientOptions;
  /**
   * URLs of some nodes of a Redis Cluster (`['redis://10.0.0.1:7000', 'redis://10.0.0.2:7000']`):
   * docket opens a node-redis cluster client from them (`createCluster` with these root nodes), and
   * close() closes it. 1 to 100 URLs, each checked as `url` is (a {@link ValidationError} naming
   * `options.cluster[i]`). Not together with `url` or `client` (a ValidationError naming
   * `options.cluster`). See docs/design.md#redis-cluster. Default: none.
   */
  cluster?: string[];
  /**
   * First part of every key: `<prefix>:{<queue>}:<suffix>`. 1 to 64 characters, with the same
   * character rule as queue names (docs/api.md#scheduleroptions). Default: `'docket'`.
   */
  prefix?: string;
  /** Queue used by every call that names none. Default: `'default'`. */
  queue?: string;
  /**
   * Largest canonical JSON payload, in UTF-8 bytes, that put accepts: a whole number, 1 to 512 MiB.
   * Default: 524288 (512 KiB).
   */
  maxPayloadBytes?: number;
  /**
   * Largest result or progress value a handler may report, in UTF-8 bytes of its JSON: a whole
   * number, 1 to 512 MiB. A larger one is a {@link PayloadTooLargeError} (`field: 'result'` or
   * `'progress'`): a handler's result fails its attempt, as a bad payload would. See
   * docs/api.md#outcomes-results-result-progress-logs. Default: 65536 (64 KiB).
   */
  maxResultBytes?: number;
  /**
   * Most log lines kept per task (`task.log`, docs/api.md#task-logs); beyond it the oldest go. A whole
   * number, 1 to 1,000,000. Default: 100.
   */
  logMaxLines?: number;
  /**
   * Most bytes of log kept per task (docs/api.md#task-logs): each line costs the UTF-8 bytes of its
   * JSON string plus 15 (its time and separators); beyond it the oldest lines go, and one line alone
   * over it is a {@link PayloadTooLargeError} (`field: 'line'`). A whole number, 1 to 512 MiB. A
   * write costs the same at any size of log; deleting one (with its task) costs a step per 16 KiB
   * chunk of it. Dropped lines leave Redis with their chunk, so a task's log may hold up to one
   * 16 KiB chunk of them beyond the cap. Each write sends this scheduler's caps (`logMaxLines` too),
   * so schedulers sharing a queue should use the same ones. Default: 65536 (64 KiB).
   */
  logMaxBytes?: number;
  /**
   * Dead tasks kept per queue: a whole number, 1 to 10,000,000. The oldest beyond it are deleted.
   * (The name differs from put's `maxAttempts` on purpose, one word per idea: `attempts`, `attempt`
   * and `maxAttempts` count one task's deliveries; `deadMaxCount` and `deadMaxAge` bound a queue's
   * dead set, as `eventsMaxLength` and `logMaxLines` bound theirs: `<what>Max<measure>`.)
   * Default: 10,000.
   */
  deadMaxCount?: number;
  /** How long a dead task is kept, as a {@link Span} longer than 0 ms. Default: 7 days (604800000 ms). */
  deadMaxAge?: Span;
  /**
   * Deadline of each Redis call (every method's script call, the start-up checks, a worker's
   * heartbeats, the opening of its blocking connection and its blocking wait), as a {@link Span}
   * longer than 0 ms and at most about 24 days (a timer counts it). A call with no reply by then
   * rejects with a {@link TimeoutError}: its outcome is unknown, and retrying it is safe. A `NOSCRIPT`
   * reply is answered by sending the script, and `LOADING`, `BUSY`, `TRYAGAIN` and `CLUSTERDOWN`
   * replies are retried, all inside the deadline, so those reach you only once it has passed. It also
   * sets how long an ack is remembered: 4 × `commandTimeout`. See
   * docs/api.md#deadlines-retries-and-unknown-outcomes. Default: 5000 (5 s).
   */
  commandTimeout?: Span;
  /**
   * `(message: string) => void` that receives the start-up warnings about Redis settings that weaken
   * docket's guarantees (`maxmemory-policy` other than `noeviction`, AOF off, no `CLIENT UNBLOCK`;
   * docs/api.md#start-up-checks), at every start, and the deprecation warning of an old call form
   * (once per method and scheduler). Anything but a function is a {@link ValidationError}
   * (`field: 'options.onWarning'`). One that throws on a start-up warning does not stop the start.
   * Default: `(message) => process.emitWarning(message, 'DocketWarning')`.
   */
  onWarning?: (message: string) => void;
  /**
   * Which start-up warnings to give (docs/api.md#start-up-checks). `{ aof: false }` turns off the one
   * about AOF being off, for this scheduler, and skips that check (no `CONFIG GET appendonly`, no
   * marker key): for a service that chose snapshots only, a test, a demo. With `aof: true`, docket
   * prints that warning once a day per Redis server and default queue, from the first process to
   * start, or hands it to your `onWarning` at every start. Anything but an object of booleans is a
   * {@link ValidationError} (`options.warnings.aof`; an unknown name such as
   * `options.warnings.eviction`). Default: `{ aof: true }`.
   */
  warnings?: {
    /** false: no warning about AOF being off, and no marker key written. Default: true. */
    aof?: boolean;
  };
  /**
   * Replaces the identity hash. For tests only: a weak hash forces collisions. Anything but a
   * function is a {@link ValidationError} (`options.hash`); when it throws, or returns anything but
   * a non-empty string, the call that hashed (a put) rejects with a {@link HashFunctionError} before
   * any I/O. Default: the built-in 128-bit xxhash (an HMAC under the first key with `encryption`).
   */
  hash?: HashFunction;
  /**
   * Payloads, results, progress and log lines stored AES-256-GCM encrypted with the first key, and
   * read with whichever listed key sealed them, so a new key listed first rotates without a stop
   * (keep the old ones while values sealed with them live; docs/operations.md#encryption-at-rest).
   * Each key's id is stored with every value it seals (never the key). A bad list is a
   * {@link ValidationError} naming the field (`options.encryption.keys[0].key`).
   *
   * Every value takes a fresh random nonce, so equal payloads never share sealed text. The identity
   * hash becomes an HMAC-SHA256 under the first key of the identity bound to its prefix and queue
   * (unless `hash` is given): equal payloads still de-duplicate within a queue, while Redis holds no
   * plain hash of them and equal payloads in two queues or prefixes get unrelated hashes (a change
   * of hash for encrypted queues from 0.1: see docs/operations.md#encryption-at-rest). A scheduler without the key
   * (the CLI, a dashboard) reads such values as null with `encrypted: true` on the task or outcome,
   * and shows "encrypted"; a handler given a task whose payload it cannot decrypt fails that attempt
   * with a {@link DecryptionError}. Limits (`maxPayloadBytes`, `maxResultBytes`) count the value
   * before it is sealed; log caps count the sealed line. Uses `node:crypto`.
   * Default: none, values are stored plain.
   */
  encryption?: {
    /**
     * The keys, the one to seal with first: 1 to 100 `{ id, key }`. Each `key` is 32 bytes, as a
     * Buffer (or Uint8Array) or a base64 string of 44 characters (`openssl rand -base64 32`); each
     * `id` is 1 to 64 of `A-Z a-z 0-9 _ . -`, unique in the list.
     */
    keys: Array<{
      /** The key's id, stored with each value it seals: unique, 1 to 64 of `A-Z a-z 0-9 _ . -`. */
      id: string;
      /**
       * The key: 32 bytes, as a Buffer (or Uint8Array) or a base64 string of 44 characters
       * (`openssl rand -base64 32`).
       */
      key: Buffer | Uint8Array | string;
    }>;
  };
  /**
   * Entries kept in each queue's events stream (docs/api.md#schedulereventsoptions), about: the
   * stream is trimmed with `MAXLEN ~`, so it may hold a little more. A whole number, 0 to 10,000,000;
   * 0 writes no events. Each call sends this scheduler's value, so schedulers sharing a queue should
   * use the same one. Default: 10,000.
   */
  eventsMaxLength?: number;
  /**
   * Which events the scripts write to each queue's events stream: `'outcomes'`, the outcome events
   * (completed, failed, dead, ..., and paused / resumed); `'all'`, also the lifecycle events added,
   * active, lapsed, retrying and drained (docs/api.md#lifecycle-events). Anything else is a
   * {@link ValidationError} (`options.events`).
   *
   * The default is 'outcomes' because 'all' costs an `XADD` per task put and per task claimed (and a
   * few reads on the claim that empties the queue): a measurable cost on the put and drain rows of
   * `npm run bench`, paid by every queue whether anyone reads its events or not. Ask for 'all' when
   * something follows a queue's tasks through their life (a dashboard, an audit trail). Each call
   * sends this scheduler's value, so a producer and its workers should agree (a producer with 'all'
   * and workers with 'outcomes' write `added` but no `active`). Default: `'outcomes'`.
   */
  events?: 'outcomes' | 'all';
  /**
   * A logger with pino's call shape: `info` and `warn` methods, called as `(fields, message)`; those
   * are the only levels docket logs at, so `debug` and `error` are not needed (and not called). A
   * pino logger fits as it is (docs/api.md#logging). A value without `info` or `warn` is a
   * {@link ValidationError} naming the missing one (`options.logger.warn`). Default: none, docket
   * logs nothing.
   */
  logger?: Logger;
}

/** Maps an identity string to a task's hash. Injectable (see SchedulerOptions.hash) for tests. */
export type HashFunction = (identity: string) => string;
