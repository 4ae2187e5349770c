/**
 * A caller's ioredis client (5 or 6; a standalone `Redis` or a `Cluster`), presented in the shape
 * docket sends through: a node-redis client (RedisClientLike), or for a Cluster the part of a
 * node-redis 4 cluster that ClusterLink uses. Found by duck typing: docket never loads ioredis,
 * which stays a thing the caller brings.
 *
 * docket never sends through the caller's own connection: several of its options would change
 * what docket reads or how a lost call ends. `keyPrefix` would prefix the keys in KEYS but not the
 * names docket keeps in ARGV; `stringNumbers` turns integer replies into strings; ioredis 6 speaks
 * RESP3 by default, whose script replies differ; and `autoResendUnfulfilledCommands` (on by
 * default) sends a call again after a reconnect, where docket must report it as of unknown outcome
 * (IndeterminateError) rather than run a claim or an ack twice. So docket sends through a
 * duplicate of the client (same address, credentials, TLS and database) with those options set as
 * it needs, a connection of its own that close() ends; the caller's client is left as it is.
 */
import type { IoRedisCluster, IoRedisLike, IoRedisStandalone, RedisClientLike } from '../types/client';
import { ConnectionError, fromRedisError, IndeterminateError } from '../types/errors';
import { slotOf } from './slots';
import { clientName } from './client-name';

/** What docket sets on each connection it opens from a caller's ioredis client (see the top). */
const PLAIN = {
  lazyConnect: true,
  keyPrefix: '',
  stringNumbers: false,
  autoResendUnfulfilledCommands: false,
  // Calls wait through an outage, as with node-redis; docket's own deadlines bound them.
  maxRetriesPerRequest: null,
  enableOfflineQueue: true,
  commandTimeout: undefined,
  // ioredis 6 speaks RESP3 unless told otherwise; ioredis 5 ignores the option.
  protocol: 2,
};

/**
 * PLAIN, and docket's connection name (client-name.ts): ioredis sends CLIENT SETNAME on each
 * connect and ignores a refusal, so an ACL without it costs nothing but the name.
 */
function plain(): typeof PLAIN & { connectionName: string } {
  return { ...PLAIN, connectionName: clientName() };
}

/** Whether a client is an ioredis one (both classes carry `isCluster`, node-redis clients do not). */
export function isIoRedis(client: unknown): client is IoRedisLike {
  const c = client as Partial<IoRedisStandalone>;
  return typeof c.isCluster === 'boolean' && typeof c.call === 'function' && typeof c.status === 'string';
}

/** docket's own connection from a caller's ioredis client, not yet connected: see the top. */
export function duplicateIoRedis(client: IoRedisLike): IoStandalone | IoCluster {
  if (client.isCluster) {
    const cluster = client as IoRedisCluster;
    const redisOptions = { ...cluster.options.redisOptions, ...plain(), lazyConnect: undefined, keyPrefix: undefined };
    return new IoCluster(cluster.duplicate([], { lazyConnect: true, keyPrefix: '', enableOfflineQueue: true, scaleReads: 'master', redisOptions }));
  }
  return new IoStandalone((client as IoRedisStandalone).duplicate(plain()));
}

/** A call that may settle on its own or be ended by a lost connection. */
interface Pending {
  fail(err: Error): void;
}

/**
 * An ioredis `Redis` as a node-redis client. With autoResendUnfulfilledCommands off, ioredis drops
 * the calls a lost connection had in flight without settling them: they are failed here with
 * IndeterminateError, as node-redis fails them (the command may or may not have run). Calls made
 * while disconnected wait in ioredis's offline queue and go out once it is ready again.
 */
export class IoStandalone implements RedisClientLike {
  /** Calls written to the connection (or in the offline queue that 'ready' sends). */
  private readonly sent = new Set<Pending>();
  private readonly queued = new Set<Pending>();
  /** Set by disconnect(): ioredis reports the end only on a later turn. */
  private ended = false;

  constructor(readonly io: IoRedisStandalone) {
    io.on('ready', () => {
      for (const p of this.queued) this.sent.add(p);
      this.queued.clear();
    });
    io.on('close', () => {
      const lost = [...this.sent];
      this.sent.clear();
      for (const p of lost) p.fail(new IndeterminateError('Redis call', new Error('connection closed')));
    });
  }

  get isOpen(): boolean {
    return !this.ended && this.io.status !== 'wait' && this.io.status !== 'end';
  }

  sendCommand<T = unknown>(args: string[]): Promise<T> {
    // As node-redis refuses a call on a client it closed (ClientClosedError): nothing is sent.
    if (this.ended) return Promise.reject(new ConnectionError(new Error('the connection was closed')));
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = { fail: reject };
      (this.io.status === 'ready' ? this.sent : this.queued).add(pending);
      callRaw(this.io, args)
        .then((reply) => resolve(reply as T), reject)
        .finally(() => {
          this.sent.delete(pending);
          this.queued.delete(pending);
        });
    });
  }

  duplicate(): IoStandalone {
    return new IoStandalone(this.io.duplicate(plain()));
  }

  async connect(): Promise<void> {
    await this.io.connect();
  }

  disconnect(): Promise<void> {
    this.ended = true;
    return endOf(this.io);
  }

  on(event: 'error', listener: (err: Error) => void): this {
    this.io.on(event, (err) => listener(err as Error));
    return this;
  }
}

/**
 * An ioredis `Cluster` as ClusterLink uses a node-redis 4 cluster. A command that names its key is
 * sent through the cluster, which routes it by that key's slot and follows MOVED and ASK itself; one
 * that does not (CLIENT UNBLOCK, routed to the node of a blocked reader) goes straight to the
 * master that owns the routing key's slot on ioredis's current map.
 */
export class IoCluster {
  /** One adapter per node connection, so each node gets docket's listeners once. */
  private readonly nodes = new WeakMap<IoRedisStandalone, IoStandalone>();

  constructor(readonly io: IoRedisCluster) {}

  get isOpen(): boolean {
    return this.io.status !== 'wait' && this.io.status !== 'end';
  }

  sendCommand(firstKey: string, _readonly: boolean, args: string[]): Promise<unknown> {
    if (args.includes(firstKey)) return callRaw(this.io, args);
    return this.nodeClient(this.getSlotMaster(slotOf(firstKey))).sendCommand(args);
  }

  /** The `host:port` of the master that owns `slot`, on ioredis's current map. */
  getSlotMaster(slot: number): string {
    const master = this.io.slots[slot]?.[0];
    if (!master) throw new ConnectionError(new Error(`no node owns slot ${slot} yet`));
    return master;
  }

  /** Every master ioredis is connected to, as `host:port`. */
  get masters(): Array<{ address: string }> {
    return this.io.nodes('master').map((n) => ({ address: `${n.options.host}:${n.options.port}` }));
  }

  /** The connection to a master, by its `host:port` (getSlotMaster) or as `masters` lists it. */
  nodeClient(master: string | { address: string }): IoStandalone {
    const nodeKey = typeof master === 'string' ? master : master.address;
    const node = this.io.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === nodeKey);
    if (!node) throw new ConnectionError(new Error(`not connected to ${nodeKey}`));
    let adapted = this.nodes.get(node);
    if (!adapted) this.nodes.set(node, (adapted = new IoStandalone(node)));
    return adapted;
  }

  duplicate(): IoCluster {
    return new IoCluster(this.io.duplicate([], { lazyConnect: true }));
  }

  async connect(): Promise<void> {
    await this.io.connect();
  }

  disconnect(): Promise<void> {
    return endOf(this.io);
  }

  on(event: 'error', listener: (err: Error) => void): this {
    this.io.on(event, (err) => listener(err as Error));
    return this;
  }
}

/**
 * One command through ioredis, its reply as node-redis gives it. The name goes upper-case: ioredis
 * keys its reply transformers (HGETALL to an object, and in ioredis 6 XREAD and others) by the
 * lower-case name it was called with, so an upper-case name gets the plain reply. `call` answers
 * with strings, not Buffers. Errors come back as DocketErrors.
 */
function callRaw(io: IoRedisLike, args: string[]): Promise<unknown> {
  return io.call(args[0]!.toUpperCase(), args.slice(1)).catch((err: unknown) => {
    throw fromIoRedisError(err);
  });
}

/**
 * ioredis's own errors as docket's. A reply error (ReplyError) carries Redis's message, which
 * fromRedisError reads; "Connection is closed." and a full offline queue mean the call was not sent.
 */
export function fromIoRedisError(err: unknown): Error {
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : '';
  if (name === 'MaxRetriesPerRequestError' || /^Connection is closed|^Stream isn't writeable/.test(message)) return new ConnectionError(err);
  return fromRedisError(err);
}

/**
 * Ends an ioredis connection at once, as node-redis's disconnect() does: ioredis's disconnect()
 * ends the socket and fails what the connection still holds. Not waited for ('end' comes on a later
 * turn of the event loop), so a close() settles in the same turn as the calls it ended.
 */
function endOf(io: IoRedisLike): Promise<void> {
  io.disconnect();
  return Promise.resolve();
}
