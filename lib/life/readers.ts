/**
 * The readers of the events streams that result(hash, { wait })'s callers wait on: in one
 * scheduler, a few of them serve every caller, however many queues they wait in.
 *
 * The scripts that finish a task append to its queue's events stream; a reader hands each finish
 * to the callers waiting for that task. On a standalone Redis one reader serves every queue: one
 * connection of its own, blocked in one `XREAD ... STREAMS k1 k2 ... id1 id2 ...`. On a cluster a
 * command's keys must share a hash slot, and each queue is a slot of its own (its `{queue}` tag),
 * so a blocking reader reads one slot: up to CLUSTER_READERS of them, each on a connection to its
 * slot's master. Streams of further slots are read without blocking, through the scheduler's own
 * cluster connection, a round every POLL_MS (up to 1 ms per slot, so at most about 1,000 XREADs a
 * second), until a blocking reader is free for them.
 *
 * A caller for a queue not read yet joins while the read is blocked: it is cut short with CLIENT
 * UNBLOCK (as an idle worker's BLPOP is, idle.ts) and sent again with the new stream, read from the
 * id the caller's first read returned, so no finish after that read is missed. Without CLIENT
 * UNBLOCK (an ACL refuses it) a read blocks at most SHORT_BLOCK_MS: a new queue joins that late.
 */
import { clientId, clientUnblock } from '../ops/commands/server';
import { xread, type StreamEntry } from '../ops/commands/streams';
import { dedicated, routed } from '../ops/commands/via';
import { slotOf } from '../redis/connection';
import type { Standalone } from '../types/client';
import type { Context } from '../redis/context';
import { withDeadline } from '../redis/deadline';
import { fromRedisError } from '../types/errors';
import { errorFields } from '../domain/log';
import { Stream, Waiter } from './waiters';

/** Entries read per call (shared out among the streams of one read), at least MIN_BATCH each. */
const BATCH = 1000;
const MIN_BATCH = 16;
/** How long one blocking read waits before it looks again; without CLIENT UNBLOCK, SHORT_BLOCK_MS. */
const BLOCK_MS = 5000;
const SHORT_BLOCK_MS = 500;
/** Pause before reading again after a lost connection. */
const RETRY_MS = 200;
/** Retry an unblock this often while the XREAD has not reached the server yet. */
const UNBLOCK_RETRY_MS = 2;
/** Blocking readers (connections) per scheduler on a cluster, one slot each; on a standalone Redis, 1. */
export const CLUSTER_READERS = 16;
/** The pause between two rounds of the non-blocking reads of a cluster's further slots. */
const POLL_MS = 100;
const POLL_MAX_MS = 1000;

/** Entries one read asks of each of `n` streams: BATCH shared out among them. */
function countFor(n: number): number {
  return Math.max(MIN_BATCH, Math.ceil(BATCH / n));
}

/** What an XREAD reads: each stream after its `last`. */
function positions(streams: Stream[]): Array<[key: string, after: string]> {
  return streams.map((s) => [s.key, s.last ?? '0-0']);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One non-blocking XREAD of one slot's streams; true when it read a full batch (more may wait). */
export async function readSlot(ctx: Context, group: Stream[]): Promise<boolean> {
  try {
    const read = await xread(routed(ctx.conn, group[0].key, { ms: ctx.options.commandTimeout, what: 'result' }), positions(group), { count: countFor(group.length) });
    for (const stream of group) stream.take(read.get(stream.key) ?? []);
    return [...read.values()].some((entries) => entries.length === countFor(group.length));
  } catch (err) {
    ctx.log.warn({ key: group[0].key, ...errorFields(fromRedisError(err, 'result')) }, 'docket: result reader could not read; reading again');
    return false;
  }
}

const waitsOf = new WeakMap<Context, Waits>();

/** The waits of `ctx`'s scheduler: made with its first waiting caller, kept for its life. */
export function waits(ctx: Context, closing: AbortSignal): Waits {
  let w = waitsOf.get(ctx);
  if (!w) waitsOf.set(ctx, (w = new Waits(ctx, closing)));
  return w;
}

/** Every waiting caller of one scheduler, by queue and task, and what reads their streams. */
export class Waits {
  private readonly streams = new Map<string, Stream>();
  /** Blocking readers by slot (all under 0 on a standalone Redis). */
  private readonly readers = new Map<number, Reader>();
  /** On a cluster, streams of slots past CLUSTER_READERS, read in polling rounds. */
  private readonly polled = new Set<Stream>();
  private polling = false;
  private wakePoll: (() => void) | null = null;
  private readonly clustered: boolean;

  constructor(
    private readonly ctx: Context,
    private readonly closing: AbortSignal,
  ) {
    const client = ctx.options.client as { getSlotMaster?: unknown } | undefined;
    this.clustered = ctx.options.cluster !== undefined || typeof client?.getSlotMaster === 'function';
    // One listener on the closing signal for every caller, whatever the number of queues.
    closing.addEventListener('abort', () => this.close(), { once: true });
  }

  /** Registers a caller before its first read, so that a finish between the two is not missed. */
  add(queue: string, id: string): Waiter {
    let stream = this.streams.get(queue);
    if (!stream) this.streams.set(queue, (stream = new Stream(this.ctx.keys(queue).events)));
    const waiter = new Waiter(queue, id);
    stream.join(waiter);
    return waiter;
  }

  /** The caller's first read answered: its stream is read after `waiter.from`, unless already read (from an earlier point). */
  start(waiter: Waiter): void {
    const stream = this.streams.get(waiter.queue);
    if (!stream || stream.last !== null || this.closing.aborted) return;
    stream.last = waiter.from;
    if (!this.toReader(stream)) {
      this.polled.add(stream);
      this.poll();
    }
  }

  remove(waiter: Waiter): void {
    const stream = this.streams.get(waiter.queue);
    if (!stream?.leave(waiter)) return;
    // Nobody waits on the queue: its stream is read no more, and a reader left with none goes
    // (its connection closes, which cuts its blocked read short).
    this.streams.delete(waiter.queue);
    if (this.polled.delete(stream)) return;
    const slot = this.slotOf(stream);
    const reader = this.readers.get(slot);
    if (reader?.drop(stream) === 0) {
      this.readers.delete(slot);
      reader.stop();
    }
  }

  /** Has a blocking reader read `stream`: its slot's, or a new one while there are fewer than the bound. */
  private toReader(stream: Stream): boolean {
    const slot = this.slotOf(stream);
    let reader = this.readers.get(slot);
    if (!reader) {
      if (this.readers.size >= (this.clustered ? CLUSTER_READERS : 1)) return false;
      this.readers.set(slot, (reader = new Reader(this.ctx, stream.key)));
    }
    reader.add(stream);
    return true;
  }

  /** The slot a stream's reader reads: its own on a cluster, one for all on a standalone Redis. */
  private slotOf(stream: Stream): number {
    return this.clustered ? slotOf(stream.key) : 0;
  }

  private close(): void {
    for (const stream of this.streams.values()) stream.close();
    for (const reader of this.readers.values()) reader.stop();
    this.readers.clear();
    this.polled.clear();
    this.wakePoll?.();
  }

  private poll(): void {
    if (this.polling) return;
    this.polling = true;
    void this.rounds().finally(() => (this.polling = false));
  }

  /** Reads the polled streams, one non-blocking XREAD per slot a round, until none is left. */
  private async rounds(): Promise<void> {
    while (this.polled.size > 0 && !this.closing.aborted) {
      // A blocking reader freed since takes a polled stream over.
      for (const stream of [...this.polled]) if (this.toReader(stream)) this.polled.delete(stream);
      const bySlot = new Map<number, Stream[]>();
      for (const stream of this.polled) {
        const slot = slotOf(stream.key);
        const group = bySlot.get(slot);
        if (group) group.push(stream);
        else bySlot.set(slot, [stream]);
      }
      const more = await Promise.all([...bySlot.values()].map((group) => readSlot(this.ctx, group)));
      if (more.includes(true)) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(POLL_MAX_MS, Math.max(POLL_MS, bySlot.size)));
        this.wakePoll = () => (clearTimeout(timer), resolve());
      });
      this.wakePoll = null;
    }
  }
}

/** A blocking reader: one connection of its own, blocked in one XREAD over its streams. */
export class Reader {
  private readonly streams = new Set<Stream>();
  private conn: Standalone | null = null;
  private stopped = false;
  private running = false;
  /** The XREAD in flight: its connection's CLIENT ID, the streams it reads, and whether it is being cut short. */
  private call: { id: Promise<number | null>; streams: Set<Stream>; cut: boolean } | null = null;

  constructor(
    private readonly ctx: Context,
    /** A key of the reader's slot: its connection and unblocks go to that key's node. */
    private readonly route: string,
  ) {}

  add(stream: Stream): void {
    this.streams.add(stream);
    if (!this.running) {
      this.running = true;
      void this.loop().finally(() => this.disconnect());
    } else if (this.call && !this.call.streams.has(stream)) this.interrupt(this.call);
  }

  /** Reads `stream` no more (its blocked read may still hold it, at no cost); returns how many are left. */
  drop(stream: Stream): number {
    this.streams.delete(stream);
    return this.streams.size;
  }

  stop(): void {
    this.stopped = true;
    this.disconnect();
  }

  private disconnect(): void {
    const c = this.conn;
    this.conn = null;
    if (c?.isOpen) void c.disconnect().catch(() => {});
  }

  /** Reads until stopped. Never rejects. */
  private async loop(): Promise<void> {
    while (!this.stopped && this.streams.size > 0) {
      let read: Array<[Stream, StreamEntry[]]>;
      try {
        read = await this.read();
      } catch (err) {
        if (this.stopped) return;
        // A lost connection, or any other trouble: waiters still get their answer when their wait
        // ends (a last read), so the reader only reports, and reads on from where it was.
        this.ctx.log.warn({ key: this.route, ...errorFields(fromRedisError(err, 'result')) }, 'docket: result reader lost its connection; reading again');
        this.disconnect();
        await sleep(RETRY_MS);
        continue;
      }
      for (const [stream, entries] of read) stream.take(entries);
    }
  }

  /** One blocking XREAD over the reader's streams (as they are once connected); each one's new entries. */
  private async read(): Promise<Array<[Stream, StreamEntry[]]>> {
    const limit = this.ctx.options.commandTimeout;
    const conn = (this.conn ??= await this.ctx.conn.duplicate(this.route, limit));
    // Stopped while it connected: the connection goes at once.
    if (this.stopped) {
      this.disconnect();
      return [];
    }
    const streams = [...this.streams];
    const block = this.ctx.unblock ? BLOCK_MS : SHORT_BLOCK_MS;
    // Pipelined with the XREAD: its CLIENT ID, for an unblock (it changes if node-redis reconnects).
    const id = this.ctx.unblock ? clientId(dedicated(conn)) : Promise.resolve(null);
    id.catch(() => {});
    this.call = { id, streams: new Set(streams), cut: false };
    try {
      // A connection that hangs (a network black hole) would leave the read pending for ever.
      // Decoded here, so that a reply of another shape is reported as any other trouble.
      const read = await withDeadline(xread(dedicated(conn), positions(streams), { count: countFor(streams.length), block }), block + limit, 'result');
      return streams.map((stream) => [stream, read.get(stream.key) ?? []]);
    } finally {
      this.call = null;
    }
  }

  /** Cuts the blocked read short, so that the next one reads the stream just added. */
  private interrupt(call: NonNullable<Reader['call']>): void {
    if (call.cut || !this.ctx.unblock) return;
    call.cut = true;
    const attempt = async (): Promise<void> => {
      try {
        const id = await call.id;
        const done = await clientUnblock(routed(this.ctx.conn, this.route, { ms: this.ctx.options.commandTimeout, what: 'unblock' }), id!);
        // Not blocked yet (the XREAD has not reached Redis): again, while it is still in flight.
        if (!done && this.call === call) setTimeout(() => void attempt(), UNBLOCK_RETRY_MS);
      } catch {
        // The read's own BLOCK still ends it, BLOCK_MS at most.
      }
    };
    void attempt();
  }
}
