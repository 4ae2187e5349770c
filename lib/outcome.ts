/**
 * Task outcomes: what result() reads of a task, live or finished. A task put (or worked) with
 * `keepResult` keeps its outcome for that span once it finishes (lua/include/outcomes.lua).
 *
 * result(hash, { wait }) waits without polling: the finishing scripts append to the queue's events
 * stream, and one reader per queue and process (a blocking XREAD on a connection of its own) hands
 * each finish to the callers waiting for that task. So a waiting call costs Redis nothing while it
 * waits, and a thousand of them share one connection.
 *
 * One concept over 300 lines: a task's outcome, read (result), awaited (the shared events reader)
 * and written (resultJson's checks).
 */
import type { Standalone } from './connection';
import type { KeptOutcome, ResultReply } from './codecs/reads';
import { after, readEntries, type StreamEntry } from './codecs/streams';
import type { Context } from './context';
import { ClosedError, fromRedisError } from './errors';
import { errorFields } from './log';
import { parseMeta } from './meta';
import { parseRecord, type Json } from './payload';
import type { Span } from './time';

interface OutcomeBase {
  readonly hash: string;
  readonly queue: string;
  /** Deliveries so far (for a finished task: the deliveries it took). */
  readonly attempts: number;
}

/** A task that has not finished: waiting (delayed or ready) or leased. */
export interface LiveOutcome extends OutcomeBase {
  readonly state: 'pending' | 'active';
  readonly runAt: number;
  /** The latest progress its handler reported, else null. */
  readonly progress: Json | null;
}

/** A task whose handler succeeded. */
export interface DoneOutcome<R = Json> extends OutcomeBase {
  readonly state: 'done';
  /** The handler's resolved value; null when it resolved with nothing, or the result was not kept. */
  readonly result: R | null;
  /** When it finished: epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/** A task that used up its attempts. */
export interface DeadOutcome extends OutcomeBase {
  readonly state: 'dead';
  /** The last failure (a handler's error, or 'lease expired'). */
  readonly error: string | null;
  readonly finishedAt: number;
}

/** A task dropped unclaimed once its expiry passed, or cancelled before it ran. */
export interface EndedOutcome extends OutcomeBase {
  readonly state: 'expired' | 'cancelled';
  readonly finishedAt: number;
}

/**
 * An until-start task that failed while a task of its identity already waited (put while it ran):
 * it was not retried, since that task does the same work.
 */
export interface MergedOutcome extends OutcomeBase {
  readonly state: 'merged';
  /** The hash of the waiting task it was merged into. */
  readonly into: string;
  readonly finishedAt: number;
}

export type TaskOutcome<R = Json> = LiveOutcome | DoneOutcome<R> | DeadOutcome | EndedOutcome | MergedOutcome;

/** The options of Scheduler.result (and Sharded.result, without `queue`). */
export interface ResultOptions {
  queue?: string;
  /** Wait this long for the task to finish (ms or a Duration; at most 24 days). Default 0: answer now. */
  wait?: Span;
}

/** The event types that end a task, as the scripts emit them, and the outcome state each means. */
const FINISHES: Record<string, 'done' | 'dead' | 'expired' | 'cancelled' | 'merged'> = { completed: 'done', dead: 'dead', expired: 'expired', cancelled: 'cancelled', merged: 'merged' };

/** What docket knows of task `id` now; `stream` asks for the events stream's latest id too. */
async function read(ctx: Context, queue: string, id: string, stream: boolean): Promise<{ outcome: TaskOutcome | null; stream: string }> {
  const reply = await ctx.scripts.run('result', ctx.keys(queue), { id, stream });
  return { outcome: toOutcome(queue, id, reply), stream: reply.stream };
}

function toOutcome(queue: string, hash: string, reply: ResultReply): TaskOutcome | null {
  if (reply.kind === 'none') return null;
  if (reply.kind === 'kept') return fromKept(queue, hash, reply.kept);
  const meta = parseMeta(reply.meta, `the metadata of task ${hash}`);
  if (reply.state === 'dead') return { state: 'dead', hash, queue, attempts: meta.n, error: meta.err ?? null, finishedAt: Number(reply.diedAt) };
  const progress = reply.progress === null ? null : parseRecord(reply.progress, `the progress of task ${hash}`);
  return { state: reply.state === 'active' ? 'active' : 'pending', hash, queue, attempts: meta.n, runAt: meta.r, progress };
}

/** A kept outcome, as the result codec decoded it (lua/include/outcomes.lua stores it). */
function fromKept(queue: string, hash: string, kept: KeptOutcome): TaskOutcome {
  const base = { hash, queue, attempts: kept.attempts, finishedAt: kept.finishedAt };
  if (kept.state === 'done') return { ...base, state: 'done', result: kept.result === null ? null : parseRecord(kept.result, `the result of task ${hash}`) };
  if (kept.state === 'dead') return { ...base, state: 'dead', error: kept.error };
  if (kept.state === 'merged') return { ...base, state: 'merged', into: kept.into };
  return { ...base, state: kept.state };
}

function finished(outcome: TaskOutcome | null): boolean {
  return outcome === null || (outcome.state !== 'pending' && outcome.state !== 'active');
}

/** The outcome of task `id`, waiting up to `waitMs` for it to finish. */
export async function result(ctx: Context, queue: string, id: string, waitMs: number, closing: AbortSignal): Promise<TaskOutcome | null> {
  if (waitMs === 0) return (await read(ctx, queue, id, false)).outcome;
  // Listening starts before the first read: a finish between the two is not missed.
  const readers = (readersOf.get(ctx) ?? readersOf.set(ctx, new Map()).get(ctx))!;
  let reader = readers.get(queue);
  if (!reader) readers.set(queue, (reader = new Reader(ctx, queue, closing, () => readers.delete(queue))));
  const waiter = reader.add(id);
  try {
    const first = await read(ctx, queue, id, true);
    if (finished(first.outcome)) return first.outcome;
    waiter.from = first.stream;
    if (closing.aborted) throw new ClosedError('scheduler');
    reader.start(first.stream);
    const ended = await waiter.until(waitMs);
    if (ended === 'closed') throw new ClosedError('scheduler');
    // A kept result small enough came with the finish event: nothing more to read.
    if (ended !== 'timeout' && ended.result !== undefined) return fromEvent(queue, id, ended);
    const now = await read(ctx, queue, id, false);
    // Finished, but nothing kept (no keepResult): the finish event itself tells what became of it.
    if (ended !== 'timeout' && !finished(now.outcome)) return fromEvent(queue, id, ended);
    return now.outcome ?? (ended === 'timeout' ? null : fromEvent(queue, id, ended));
  } finally {
    reader.remove(waiter);
  }
}

/** A finish event, for a task that kept no outcome. */
interface Finish {
  /** The event's stream id. */
  entry: string;
  type: string;
  at: number;
  attempt: number;
  error: string | null;
  into: string | null;
  /** A completed event's kept result as JSON ('' for none), when it carried one. */
  result?: string;
}

function fromEvent(queue: string, hash: string, e: Finish): TaskOutcome {
  const base = { hash, queue, attempts: e.attempt, finishedAt: e.at };
  const state = FINISHES[e.type];
  if (state === 'done') return { ...base, state, result: e.result ? parseRecord(e.result, `the result of task ${hash}`) : null };
  if (state === 'dead') return { ...base, state, error: e.error };
  if (state === 'merged') return { ...base, state, into: e.into ?? '' };
  return { ...base, state };
}

const readersOf = new WeakMap<Context, Map<string, Reader>>();

class Waiter {
  /** Events at or before this stream id happened before the waiter's first read. */
  from = '';
  private wake: ((ended: Finish | 'timeout' | 'closed') => void) | null = null;
  private early: Finish | null = null;

  constructor(readonly id: string) {}

  notify(finish: Finish): void {
    if (this.wake) this.wake(finish);
    else this.early ??= finish;
  }

  /** Wakes the wait: the scheduler is closing. */
  close(): void {
    this.wake?.('closed');
  }

  until(ms: number): Promise<Finish | 'timeout' | 'closed'> {
    // A finish read before the first read answered may be of an earlier life of the same id.
    if (this.early && after(this.early.entry, this.from)) return Promise.resolve(this.early);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done('timeout'), ms);
      const done = (ended: Finish | 'timeout' | 'closed') => {
        clearTimeout(timer);
        this.wake = null;
        resolve(ended);
      };
      this.wake = done;
    });
  }
}

/** Entries read per call, and how long one blocking read waits before it looks again. */
const BATCH = 1000;
const BLOCK_MS = 5000;
/** Pause before reading again after a lost connection. */
const RETRY_MS = 200;

/** Reads one queue's events stream for as long as anyone in this process waits on the queue. */
class Reader {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private running = false;
  private conn: Standalone | null = null;
  /** One listener on the scheduler's closing signal for all of this reader's callers. */
  private readonly onClose = () => {
    for (const set of this.waiting.values()) for (const w of set) w.close();
  };

  constructor(
    private readonly ctx: Context,
    private readonly queue: string,
    private readonly closing: AbortSignal,
    private readonly forget: () => void,
  ) {
    closing.addEventListener('abort', this.onClose, { once: true });
  }

  /** Nobody waits and nothing reads: the reader goes (a later caller makes a new one). */
  private gone(): void {
    this.closing.removeEventListener('abort', this.onClose);
    this.forget();
  }

  add(id: string): Waiter {
    const waiter = new Waiter(id);
    const set = this.waiting.get(id);
    if (set) set.add(waiter);
    else this.waiting.set(id, new Set([waiter]));
    return waiter;
  }

  remove(waiter: Waiter): void {
    const set = this.waiting.get(waiter.id);
    set?.delete(waiter);
    if (set?.size === 0) this.waiting.delete(waiter.id);
    // Nobody waits: the blocked read is cut short, and the connection goes (and the reader, once
    // its loop has ended, or at once when it never started).
    if (this.waiting.size === 0) {
      this.drop();
      if (!this.running) this.gone();
    }
  }

  /** Starts reading after stream id `from`, unless already reading (from an earlier point). */
  start(from: string): void {
    if (this.running || this.waiting.size === 0) return;
    this.running = true;
    void this.loop(from).then((last) => {
      this.running = false;
      this.drop();
      // A caller came while the loop was ending: read on from where it stopped, which is before
      // that caller's first read.
      if (this.waiting.size > 0 && !this.closing.aborted) this.start(last);
      else this.gone();
    });
  }

  private drop(): void {
    const c = this.conn;
    this.conn = null;
    if (c?.isOpen) void c.disconnect().catch(() => {});
  }

  /** Reads until nobody waits; returns the last stream id read. Never rejects. */
  private async loop(from: string): Promise<string> {
    const key = this.ctx.keys(this.queue).events;
    let last = from;
    while (this.waiting.size > 0 && !this.closing.aborted) {
      let entries: StreamEntry[];
      let conn: Standalone | null = null;
      try {
        conn = this.conn ??= await this.ctx.conn.duplicate(key, this.ctx.options.commandTimeout);
        // Decoded here, so that a reply of another shape is reported below as any other trouble.
        entries = readEntries(await conn.sendCommand(['XREAD', 'COUNT', String(BATCH), 'BLOCK', String(BLOCK_MS), 'STREAMS', key, last]));
      } catch (err) {
        if (this.waiting.size === 0 || this.closing.aborted) return last;
        // Dropped by remove() when the last caller left, and a new one came since: read on.
        if (conn !== null && conn !== this.conn) continue;
        // A lost connection, or any other trouble: waiters still get their answer when their wait
        // ends (a last read), so the reader only reports, and reads on from where it was.
        this.ctx.log.warn({ queue: this.queue, ...errorFields(fromRedisError(err, 'result')) }, 'docket: result reader lost its connection; reading again');
        this.drop();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      for (const entry of entries) {
        last = entry.id;
        this.dispatch(entry);
      }
    }
    return last;
  }

  private dispatch({ id: entry, at, fields: f }: StreamEntry): void {
    const type = f.get('type') ?? '';
    const waiters = FINISHES[type] ? this.waiting.get(f.get('id') ?? '') : undefined;
    if (!waiters) return;
    const finish = {
      entry,
      type,
      at,
      attempt: Number(f.get('attempt') ?? 0),
      error: f.get('error') ?? null,
      into: f.get('into') ?? null,
      result: f.get('result'),
    };
    for (const w of waiters) if (after(entry, w.from)) w.notify(finish);
  }
}
