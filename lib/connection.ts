/**
 * The Redis connection docket talks through: a node-redis v4 client it opened itself, or one the
 * caller passed in (which close() leaves open). Commands are routed by their first key, so on a
 * cluster each goes straight to the node that owns the queue's slot.
 */
import { createClient, createCluster, type RedisClientType, type RedisClusterType } from 'redis';
import { ConnectionError, fromRedisError, TimeoutError } from './errors';

const CONNECT_TIMEOUT_MS = 5000;
const RECONNECT_MAX_MS = 2000;

/** A node-redis v4 client or cluster. */
export type RedisLike = RedisClientType<any, any, any> | RedisClusterType<any, any, any>;
type Standalone = RedisClientType<any, any, any>;
type Cluster = RedisClusterType<any, any, any>;

/** How long a call may wait for its reply, and what to call it in errors. */
export interface Deadline {
  ms: number;
  what: string;
}

export interface Connection {
  /**
   * Sends one command, routed by `firstKey`; errors come back as DocketErrors. With a deadline,
   * it rejects with a TimeoutError once `ms` pass without a reply.
   */
  send(firstKey: string, args: string[], deadline?: Deadline): Promise<unknown>;
  /** A new connection of its own for blocking commands, on the node that owns `firstKey`. */
  duplicate(firstKey: string, timeoutMs: number): Promise<Standalone>;
  close(): Promise<void>;
}

function isCluster(client: RedisLike): client is Cluster {
  return typeof (client as Cluster).getSlotMaster === 'function';
}

/**
 * Wraps `client`, or opens a client to `url` (a cluster client when given a list of root nodes)
 * that close() will quit.
 */
export async function connect(url: string | string[], client?: RedisLike): Promise<Connection> {
  const own = client === undefined;
  let connected = false;
  const named = Array.isArray(url) ? url.map(redact).join(', ') : redact(url);
  const socket = {
    connectTimeout: CONNECT_TIMEOUT_MS,
    // The first connect fails fast, so createScheduler() rejects instead of hanging on a wrong
    // URL; once connected, a lost connection is retried for as long as it takes.
    reconnectStrategy: (retries: number, cause: Error) =>
      connected ? Math.min(50 * 2 ** retries, RECONNECT_MAX_MS) : new Error(`cannot connect to ${named}: ${cause.message}`),
  };
  const c: RedisLike =
    client ??
    (Array.isArray(url)
      ? openCluster({ rootNodes: url.map((u) => ({ url: u })), defaults: { socket } })
      : openClient({ url, socket }));
  if (own) {
    // Without a listener an 'error' event would crash the process; the client reconnects itself.
    c.on('error', () => {});
    await c.connect().catch((err: unknown) => {
      throw new ConnectionError(err);
    });
    connected = true;
  }
  const send = isCluster(c)
    ? (key: string, args: string[]) => c.sendCommand(key, false, args)
    : (_key: string, args: string[]) => (c as Standalone).sendCommand(args);
  return {
    async send(firstKey, args, deadline) {
      const pending = send(firstKey, args);
      if (!deadline) return pending.catch((err: unknown) => Promise.reject(fromRedisError(err)));
      // node-redis has no command timeout: race the reply against our own deadline, so every call
      // settles.
      try {
        return await withDeadline(pending, deadline.ms, deadline.what);
      } catch (err) {
        throw fromRedisError(err, deadline.what);
      }
    },
    async duplicate(firstKey, timeoutMs) {
      const origin = isCluster(c) ? await nodeFor(c, firstKey) : (c as Standalone);
      const dup = origin.duplicate();
      dup.on('error', () => {});
      try {
        await withDeadline<unknown>(dup.connect(), timeoutMs, 'connect');
      } catch (err) {
        // Otherwise it would go on reconnecting in the background, for ever.
        await dup.disconnect().catch(() => {});
        throw fromRedisError(err, 'connect');
      }
      return dup;
    },
    async close() {
      if (!own || !c.isOpen) return;
      // QUIT waits for Redis like any command; a Redis that does not answer must not hang close().
      await withDeadline<unknown>(c.quit(), CONNECT_TIMEOUT_MS, 'quit').catch(() => c.disconnect().catch(() => {}));
    },
  };
}

/** createCluster, with its synchronous throws turned into DocketErrors. */
function openCluster(options: Parameters<typeof createCluster>[0]): Cluster {
  try {
    return createCluster(options) as Cluster;
  } catch (err) {
    throw fromRedisError(err);
  }
}

/** createClient, with its synchronous throws (a malformed URL) turned into DocketErrors. */
function openClient(options: Parameters<typeof createClient>[0]): Standalone {
  try {
    return createClient(options) as Standalone;
  } catch (err) {
    throw fromRedisError(err);
  }
}

async function nodeFor(cluster: Cluster, key: string): Promise<Standalone> {
  // Blocking commands go to the master of the queue's slot (Redis Cluster spec: CRC16 mod 16384).
  return (await cluster.nodeClient(cluster.getSlotMaster(slotOf(key)))) as Standalone;
}

/** CRC16 (XMODEM) hash slot of a key, honouring a `{tag}`, as Redis Cluster computes it. */
export function slotOf(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/**
 * `promise`, or a TimeoutError once `ms` pass. The loser is still handled, so its late failure
 * is no unhandled rejection.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  promise.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** The URL without its password, for error messages. */
function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
