/**
 * The Redis connection docket talks through: a node-redis v4 client it opened itself, or one the
 * caller passed in (which close() leaves open). Commands are routed by their first key, so on a
 * cluster each goes straight to the node that owns the queue's slot.
 *
 * docket opens its own clients with node-redis 4's client package, @redis/client (the `redis`
 * package without the module packages it bundles: docket uses none of them). It is required only
 * when docket opens a client, so a service that passes its own client never loads it. A caller's
 * client may be of node-redis 4, 5 or 6 (docs/api.md#redis-clients): docket needs only the few
 * methods of RedisClientLike, which those three share. An ioredis client or cluster is sent
 * through by way of the adapter in ioredis.ts.
 *
 * Every connection docket opens carries the name `docket:<library>` (client-name.ts), which
 * `docket libraries` reads; a caller's own client keeps its name.
 */
import type { ClientOptions, RedisClientLike, RedisLike, Standalone } from '../types/client';
import { ClusterLink, type Cluster } from './cluster';
import { duplicateIoRedis, IoStandalone, isIoRedis } from './ioredis';
import { clientName, isNameRefusal, nameOnConnect } from './client-name';
import { addressOf, masterNode, type MasterNode } from './masters';
import { slotOf } from './slots';
import { withDeadline, type Deadline } from './deadline';
import { ConnectionError, fromRedisError, ValidationError } from '../types/errors';
import { redact } from '../domain/redis-url';

export { redact, slotOf };

const CONNECT_TIMEOUT_MS = 5000;
const RECONNECT_MAX_MS = 2000;
/** How long close() waits for calls still in flight before it drops the connection. */
const CLOSE_WAIT_MS = 5000;

export type { MasterNode } from './masters';

/** Where to connect: a caller's client, the root nodes of a cluster, or a URL (with client options). */
export interface Target {
  url: string;
  cluster?: string[];
  client?: RedisLike;
  clientOptions?: ClientOptions;
}

export type { Deadline } from './deadline';

export interface Connection {
  /**
   * Sends one command, routed by `firstKey`; errors come back as DocketErrors. With a deadline,
   * it rejects with a TimeoutError once `ms` pass without a reply.
   */
  send(firstKey: string, args: string[], deadline?: Deadline): Promise<unknown>;
  /** A new connection of its own for blocking commands, on the node that owns `firstKey`. */
  duplicate(firstKey: string, timeoutMs: number): Promise<Standalone>;
  /**
   * Every master: the one server, or on a cluster each master of the current slot map. For the
   * commands about a node rather than a key (FUNCTION LIST, CLIENT LIST).
   */
  masters(): Promise<MasterNode[]>;
  close(): Promise<void>;
}

/** Where the ACL refused CLIENT SETNAME: a cluster is then opened again without a name (connect()). */
const NAME_REFUSED = new Error('CLIENT SETNAME refused');

/** A client docket sends through: node-redis's, or the adapter around a caller's ioredis client. */
type Sendable = Standalone | Cluster;

function isCluster(client: Sendable): client is Cluster {
  return typeof (client as Cluster).getSlotMaster === 'function';
}

/**
 * Wraps the caller's client, or opens a client to the URL (a cluster client from the root nodes
 * of `cluster`) that close() will close.
 */
export async function connect(target: Target): Promise<Connection> {
  const { cluster: roots, clientOptions } = target;
  const url = clientOptions?.url ?? target.url;
  const named = roots ? roots.map(redact).join(', ') : redact(url);
  // The caller's connect timeout, when given, bounds docket's whole first connect too.
  const connectMs = clientOptions?.socket?.connectTimeout ?? CONNECT_TIMEOUT_MS;
  // A client's first connect fails fast, so createScheduler() rejects instead of hanging on a
  // wrong URL (and a cluster refresh gives up on a dead node); once connected, a lost connection
  // is retried for as long as it takes.
  // A retired client (a cluster client replaced by a fresh one, or closed) stops reconnecting: a
  // node client of a dead master would otherwise retry for ever and keep the process alive.
  const socket = () => {
    let connected = false;
    let retired = false;
    const options = {
      ...clientOptions?.socket,
      connectTimeout: connectMs,
      reconnectStrategy: (retries: number, cause: Error) =>
        connected && !retired ? Math.min(50 * 2 ** retries, RECONNECT_MAX_MS) : new Error(`cannot connect to ${named}: ${cause.message}`),
    } as ClientOptions['socket'];
    return { options, connected: () => void (connected = true), retire: () => void (retired = true) };
  };
  // Each connection docket opens carries docket's name (client-name.ts), unless the caller named them.
  const naming = clientOptions?.name === undefined;
  // A cluster's node clients are made inside node-redis, so they are named by its `name` option,
  // which fails their connect where the ACL refuses CLIENT SETNAME: the cluster is then opened again unnamed.
  let clusterName = naming && roots !== undefined;
  const openOwnCluster = (urls: string[], s: ReturnType<typeof socket>) =>
    openCluster({ rootNodes: urls.map((u) => ({ url: u })), defaults: { ...(clusterName ? { name: clientName() } : {}), ...clientOptions, socket: s.options } });
  const openOwn = async (s: ReturnType<typeof socket>): Promise<Sendable> => {
    const client: Sendable = roots ? openOwnCluster(roots, s) : openClient({ ...clientOptions, url, socket: s.options }, clientOptions ? 'options.clientOptions' : 'options.url');
    if (!roots && naming) nameOnConnect(client as Standalone);
    let nameRefused = false;
    // Without a listener an 'error' event would crash the process; the client reconnects itself.
    client.on('error', (err) => void (nameRefused ||= isNameRefusal(err)));
    // connectTimeout covers the socket only: a server that accepts but never answers node-redis's
    // start-up commands (a wrong port, a proxy with no backend) would hang connect() for ever.
    const opening: Promise<unknown> = client.connect();
    opening.catch(() => {}); // reported through the deadline below, not as an unhandled rejection
    await withDeadline(opening, connectMs, 'connect').catch(async (err: unknown) => {
      s.retire();
      await client.disconnect().catch(() => {});
      throw nameRefused && clusterName ? NAME_REFUSED : new ConnectionError(err);
    });
    s.connected();
    return client;
  };
  let first = socket();
  const adopted = target.client ? await adopt(target.client) : null;
  const own = adopted === null || adopted.own;
  let c: Sendable;
  if (adopted) c = adopted.client;
  else {
    c = await openOwn(first).catch(async (err: unknown) => {
      if (err !== NAME_REFUSED) throw err;
      clusterName = false;
      return openOwn((first = socket()));
    });
  }
  const link = isCluster(c)
    ? new ClusterLink({ client: c, connected: () => {}, retire: first.retire }, own, connectMs, slotOf, () => {
        // A cluster docket opened is opened again from its root nodes; a caller's is duplicated.
        if (!roots || !own) return { client: c.duplicate(), connected: () => {}, retire: () => {} };
        const s = socket();
        return { client: openOwnCluster(roots, s), connected: s.connected, retire: s.retire };
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
      // A duplicate of the caller's client is docket's connection: it gets docket's name. One of a
      // client docket opened keeps the name the caller gave in clientOptions. ioredis ones are
      // named by their connectionName (ioredis.ts).
      if (!(dup instanceof IoStandalone) && (adopted !== null || naming)) nameOnConnect(dup);
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
    async masters() {
      const nodes = link ? await link.masters() : [{ address: addressOf(c as Standalone), client: c as Standalone }];
      return nodes.map(({ address, client }) => masterNode(address, client));
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
 * A caller's client as docket uses it. A node-redis 4 cluster, or a client on RESP2 (the default
 * of node-redis 4 and 5), is used as it is. A client on RESP3 (node-redis 6's default) answers
 * HGETALL, XREAD and CONFIG GET with maps, and script replies with RESP3 types; one with a type
 * mapping answers with Buffers or Maps. Rather than read every form everywhere, docket then sends
 * through a duplicate of it on plain RESP2, a connection of its own that close() ends (the
 * caller's client is left as it is). An ioredis client or cluster is always duplicated so
 * (ioredis.ts says why). A node-redis 5 or 6 cluster is refused: its routing is not what
 * ClusterLink was tested against.
 */
async function adopt(client: RedisLike): Promise<{ client: Sendable; own: boolean }> {
  if (isIoRedis(client)) return { client: await opened(duplicateIoRedis(client)), own: true };
  const nodeRedisClient = client as RedisClientLike | Cluster;
  const modern = typeof (client as { destroy?: unknown }).destroy === 'function';
  if (isCluster(nodeRedisClient)) {
    if (!modern) return { client: nodeRedisClient, own: false };
    throw new ValidationError('options.client', 'is a node-redis 5 or 6 cluster client: give cluster: [urls] (docket opens its own) or a node-redis 4 cluster client');
  }
  if (typeof nodeRedisClient.duplicate !== 'function' || typeof nodeRedisClient.on !== 'function') {
    throw new ValidationError('options.client', 'is not a client docket can use: expected a node-redis 4, 5 or 6 client, a node-redis 4 cluster, or an ioredis 5 or 6 Redis or Cluster');
  }
  if (!modern || (await answersPlainly(nodeRedisClient))) return { client: nodeRedisClient, own: false };
  // What only RESP3 allows goes too: node-redis 6 refuses maintenance notices or a client-side cache on RESP2.
  // A mapping set with withTypeMapping() lives in the command options a duplicate inherits: they go.
  const plain = { RESP: 2, typeMapping: {}, commandOptions: undefined, maintNotifications: 'disabled', clientSideCache: undefined, emitInvalidate: false };
  const dup = (nodeRedisClient.duplicate as (overrides: typeof plain) => RedisClientLike).call(nodeRedisClient, plain);
  nameOnConnect(dup);
  return { client: await opened(dup), own: true };
}

/** A connection docket opened from a caller's client, connected (or ended, and a ConnectionError thrown). */
async function opened<C extends Sendable>(dup: C): Promise<C> {
  dup.on('error', () => {});
  await withDeadline<unknown>(dup.connect(), CONNECT_TIMEOUT_MS, 'connect').catch(async (err: unknown) => {
    await dup.disconnect().catch(() => {});
    throw new ConnectionError(err);
  });
  return dup;
}

/**
 * Whether a client answers as docket reads: RESP2 shapes, strings as strings. HELLO with no version
 * answers without switching the protocol: on RESP2 a flat array of strings, numbers and arrays; on
 * RESP3 a map (an object or Map), and with a type mapping Buffers where strings were.
 */
async function answersPlainly(client: RedisClientLike): Promise<boolean> {
  let reply: unknown;
  try {
    reply = await withDeadline(client.sendCommand(['HELLO']), CONNECT_TIMEOUT_MS, 'HELLO');
  } catch {
    // A server or ACL user without HELLO speaks RESP2 (a client not yet connected fails its first
    // call as before); only a mapping set on the client itself can tell then.
    const mapping = (client as { options?: { typeMapping?: object } }).options?.typeMapping;
    return mapping === undefined || Object.keys(mapping).length === 0;
  }
  return Array.isArray(reply) && reply.every((value) => typeof value !== 'object' || Array.isArray(value));
}

/** node-redis 4's client package, loaded the first time docket opens a client of its own. */
function nodeRedis(): typeof import('@redis/client') {
  return require('@redis/client') as typeof import('@redis/client');
}

/**
 * Ends a client docket opened: its socket is destroyed at once. Not quit(): node-redis 4 marks the
 * socket closed on QUIT, so a disconnect() after a QUIT that Redis did not answer (a frozen
 * server) throws before it destroys the socket; the late replies then find an empty reply queue
 * and node-redis throws an uncaught TypeError that takes the process down. Nothing docket sends
 * needs QUIT: close() has already waited for the calls in flight.
 */
async function shut(client: Sendable): Promise<void> {
  await client.disconnect().catch(() => {});
}

/** createCluster, with its synchronous throws turned into DocketErrors (see openClient). */
function openCluster(options: Parameters<typeof import('@redis/client').createCluster>[0]): Cluster {
  try {
    return nodeRedis().createCluster(options) as Cluster;
  } catch {
    throw new ValidationError('options.cluster', 'node-redis cannot read these URLs');
  }
}

/**
 * createClient, with its synchronous throws turned into DocketErrors. The URL was checked before
 * (domain/options/), so a throw here is a URL node-redis reads otherwise: its error quotes the URL,
 * password and all, so it is not kept as the cause.
 */
function openClient(options: ClientOptions, field: string): Standalone {
  try {
    return nodeRedis().createClient(options) as Standalone;
  } catch {
    throw new ValidationError(field, field === 'options.url' ? 'node-redis cannot read this URL' : 'node-redis cannot read these client options');
  }
}
