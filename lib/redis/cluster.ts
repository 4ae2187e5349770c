/**
 * The cluster client docket sends through, kept on the cluster's current map of slots to masters.
 *
 * node-redis v4 updates its slot map only when a node answers MOVED or ASK. A master that dies
 * answers nothing: its client reconnects to the dead address for ever, and every command for its
 * slots waits in that client's offline queue, even after a replica has been promoted. So when a
 * call through the cluster times out or loses its connection, docket opens a fresh cluster client
 * (a `duplicate()` of the current one, which discovers the slots anew from the root nodes) and
 * sends through it from then on. Until the cluster has promoted a replica, the fresh client still
 * sees the dead master, the next call times out again, and the next refresh tries again.
 */
import type { Standalone } from '../types/client';
import { withDeadline } from './deadline';
import { ConnectionError, IndeterminateError } from '../types/errors';

/**
 * What ClusterLink uses of a cluster client: a node-redis 4 cluster has it, and so has the
 * adapter around an ioredis Cluster (ioredis.ts), whose own client follows slot moves and
 * failovers itself; a refresh then merely opens a fresh one.
 */
export interface Cluster {
  sendCommand(firstKey: string, isReadonly: boolean, args: string[]): Promise<unknown>;
  /** The master that owns a slot, in the client's own terms: what nodeClient takes. */
  getSlotMaster(slot: number): unknown;
  /** Every master of the current slot map, in the terms nodeClient takes. */
  readonly masters: ReadonlyArray<{ readonly address: string }>;
  nodeClient(master: unknown): Standalone | Promise<Standalone>;
  duplicate(): Cluster;
  connect(): Promise<unknown>;
  disconnect(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
  readonly isOpen: boolean;
}

/** A cluster client; `connected` is called once it has connected, `retire` once it is dropped. */
export interface Opened {
  client: Cluster;
  connected: () => void;
  /** Ends its node clients' reconnecting, which disconnect() alone does not always stop. */
  retire: () => void;
}
export type Reopen = () => Opened;

/** At most one refresh this often: a burst of timeouts makes one new client, not many. */
const REFRESH_EVERY_MS = 500;

export class ClusterLink {
  private current: Opened;
  private refreshing: Promise<void> | null = null;
  private lastRefresh = 0;
  /** Clients docket opened (the first one too, when docket opened it): close() ends them. */
  private readonly opened = new Set<Opened>();

  constructor(
    first: Opened,
    own: boolean,
    private readonly connectTimeoutMs: number,
    private readonly slotOf: (key: string) => number,
    private readonly reopen: Reopen,
  ) {
    this.current = first;
    if (own) this.opened.add(first);
  }

  send(key: string, args: string[]): Promise<unknown> {
    return this.current.client.sendCommand(key, false, args);
  }

  /** The client of the master that owns `key`'s slot, on the current map. */
  async nodeFor(key: string): Promise<Standalone> {
    const cluster = this.current.client;
    return await cluster.nodeClient(cluster.getSlotMaster(this.slotOf(key)));
  }

  /** Every master of the current map, with its client. */
  async masters(): Promise<Array<{ address: string; client: Standalone }>> {
    const cluster = this.current.client;
    return Promise.all(cluster.masters.map(async (master) => ({ address: master.address, client: await cluster.nodeClient(master) })));
  }

  /** Called with each failed call's error: a lost or silent node makes the slot map suspect. */
  failed(err: unknown): void {
    // A timeout, a connection that broke under a call (IndeterminateError), or one that is down.
    if (!(err instanceof IndeterminateError || err instanceof ConnectionError)) return;
    if (this.refreshing || Date.now() - this.lastRefresh < REFRESH_EVERY_MS) return;
    this.lastRefresh = Date.now();
    this.refreshing = this.refresh().finally(() => (this.refreshing = null));
  }

  private async refresh(): Promise<void> {
    const opened = this.reopen();
    const fresh = opened.client;
    fresh.on('error', () => {});
    try {
      await withDeadline<unknown>(fresh.connect(), this.connectTimeoutMs, 'cluster refresh');
    } catch {
      // No node answered yet: the next failed call tries again.
      opened.retire();
      await fresh.disconnect().catch(() => {});
      return;
    }
    opened.connected();
    const old = this.current;
    this.current = opened;
    this.opened.add(opened);
    // A client docket opened goes; a caller's own client stays open, merely unused. Not awaited:
    // the old client may still be reconnecting to a dead node.
    if (this.opened.delete(old)) {
      old.retire();
      void old.client.disconnect().catch(() => {});
    }
  }

  async close(end: (client: Cluster) => Promise<void>): Promise<void> {
    await this.refreshing;
    await Promise.all(
      [...this.opened].map(async (o) => {
        o.retire();
        if (o.client.isOpen) await end(o.client);
      }),
    );
    this.opened.clear();
  }
}
