/**
 * The Redis connection docket talks through: a node-redis v4 client it opened itself, or one the
 * caller passed in (which close() leaves open). Commands are routed by their first key, so on a
 * cluster each goes straight to the node that owns the queue's slot.
 */
import { createClient, createCluster, type RedisClientType, type RedisClusterType, type RedisFunctions, type RedisModules, type RedisScripts } from 'redis';
import { ClusterLink } from './cluster';
import { withDeadline } from './deadline';
import { ConnectionError, fromRedisError, ValidationError } from './errors';
import { redact } from './redis-url';

export { redact };

const CONNECT_TIMEOUT_MS = 5000;
const RECONNECT_MAX_MS = 2000;
/** How long close() waits for calls still in flight before it drops the connection. */
const CLOSE_WAIT_MS = 5000;

/** A node-redis v4 client or cluster, with any modules, functions and scripts of its own. */
export type RedisLike = Standalone | Cluster;
export type Standalone = RedisClientType<RedisModules, RedisFunctions, RedisScripts>;
type Cluster = RedisClusterType<RedisModules, RedisFunctions, RedisScripts>;

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
 * that close() will close.
 */
export async function connect(url: string | string[], client?: RedisLike): Promise<Connection> {
  const own = client === undefined;
  const named = Array.isArray(url) ? url.map(redact).join(', ') : redact(url);
  // A client's first connect fails fast, so createScheduler() rejects instead of hanging on a
  // wrong URL (and a cluster refresh gives up on a dead node); once connected, a lost connection
  // is retried for as long as it takes.
  // A retired client (a cluster client replaced by a fresh one, or closed) stops reconnecting: a
  // node client of a dead master would otherwise retry for ever and keep the process alive.
  const socket = () => {
    let connected = false;
    let retired = false;
    const options = {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number, cause: Error) =>
        connected && !retired ? Math.min(50 * 2 ** retries, RECONNECT_MAX_MS) : new Error(`cannot connect to ${named}: ${cause.message}`),
    };
    return { options, connected: () => void (connected = true), retire: () => void (retired = true) };
  };
  const first = socket();
  const openOwnCluster = (urls: string[], s: ReturnType<typeof socket>) => openCluster({ rootNodes: urls.map((u) => ({ url: u })), defaults: { socket: s.options } });
  const c: RedisLike = client ?? (Array.isArray(url) ? openOwnCluster(url, first) : openClient({ url, socket: first.options }));
  if (own) {
    // Without a listener an 'error' event would crash the process; the client reconnects itself.
    c.on('error', () => {});
    // connectTimeout covers the socket only: a server that accepts but never answers node-redis's
    // start-up commands (a wrong port, a proxy with no backend) would hang connect() for ever.
    const opening: Promise<unknown> = c.connect();
    opening.catch(() => {}); // reported through the deadline below, not as an unhandled rejection
    await withDeadline(opening, CONNECT_TIMEOUT_MS, 'connect').catch(async (err: unknown) => {
      first.retire();
      await c.disconnect().catch(() => {});
      throw new ConnectionError(err);
    });
    first.connected();
  }
  const link = isCluster(c)
    ? new ClusterLink({ client: c, connected: () => {}, retire: first.retire }, own, CONNECT_TIMEOUT_MS, slotOf, () => {
        // A cluster docket opened is opened again from its root nodes; a caller's is duplicated.
        if (!Array.isArray(url) || !own) return { client: c.duplicate() as Cluster, connected: () => {}, retire: () => {} };
        const s = socket();
        return { client: openOwnCluster(url, s), connected: s.connected, retire: s.retire };
      })
    : null;
  const send = link ? (key: string, args: string[]) => link.send(key, args) : (_key: string, args: string[]) => (c as Standalone).sendCommand(args);
  // Calls not yet settled: close() lets them finish (within a deadline) before the socket goes.
  const inflight = new Set<Promise<unknown>>();
  return {
    async send(firstKey, args, deadline) {
      // node-redis has no command timeout: race the reply against our own deadline, so every
      // call settles. A call whose deadline passed is no longer waited for, by its caller or by close().
      const settled = deadline ? withDeadline(send(firstKey, args), deadline.ms, deadline.what) : send(firstKey, args);
      inflight.add(settled);
      try {
        return await settled;
      } catch (err) {
        const error = fromRedisError(err, deadline?.what);
        link?.failed(error);
        throw error;
      } finally {
        inflight.delete(settled);
      }
    },
    async duplicate(firstKey, timeoutMs) {
      const origin = link ? await link.nodeFor(firstKey) : (c as Standalone);
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
      // Calls whose callers still wait get their replies first, each within its own deadline.
      await withDeadline(Promise.allSettled([...inflight]), CLOSE_WAIT_MS, 'close').catch(() => {});
      // A cluster link also holds the clients its refreshes opened, even around a caller's cluster.
      if (link) return link.close(shut);
      if (own && c.isOpen) await shut(c);
    },
  };
}

/**
 * Ends a client docket opened: its socket is destroyed at once. Not quit(): node-redis 4 marks the
 * socket closed on QUIT, so a disconnect() after a QUIT that Redis did not answer (a frozen
 * server) throws before it destroys the socket; the late replies then find an empty reply queue
 * and node-redis throws an uncaught TypeError that takes the process down. Nothing docket sends
 * needs QUIT: close() has already waited for the calls in flight.
 */
async function shut(client: RedisLike): Promise<void> {
  await client.disconnect().catch(() => {});
}

/** createCluster, with its synchronous throws turned into DocketErrors (see openClient). */
function openCluster(options: Parameters<typeof createCluster>[0]): Cluster {
  try {
    return createCluster(options) as Cluster;
  } catch {
    throw new ValidationError('options.cluster', 'node-redis cannot read these URLs');
  }
}

/**
 * createClient, with its synchronous throws turned into DocketErrors. The URL was checked before
 * (options.ts), so a throw here is a URL node-redis reads otherwise: its error quotes the URL,
 * password and all, so it is not kept as the cause.
 */
function openClient(options: Parameters<typeof createClient>[0]): Standalone {
  try {
    return createClient(options) as Standalone;
  } catch {
    throw new ValidationError('options.url', 'node-redis cannot read this URL');
  }
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

/** A flat HGETALL reply, or node-redis's object form, as a map. */
export function hashReply(reply: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (Array.isArray(reply)) for (let i = 0; i < reply.length; i += 2) map.set(String(reply[i]), String(reply[i + 1]));
  else if (reply && typeof reply === 'object') for (const [k, v] of Object.entries(reply)) map.set(k, String(v));
  return map;
}
