/**
 * The callers of result(hash, { wait }) waiting for a task to finish, by queue's events stream,
 * and how a finish event read from that stream (readers.ts) reaches them.
 */
import { after, type StreamEntry } from '../ops/commands/streams';

/** The event types that end a task, as the scripts emit them, and the outcome state each means. */
export const FINISHES: Record<string, 'done' | 'dead' | 'expired' | 'cancelled' | 'merged'> = {
  completed: 'done',
  dead: 'dead',
  expired: 'expired',
  cancelled: 'cancelled',
  merged: 'merged',
};

/** A finish event, for a task that kept no outcome. */
export interface Finish {
  /** The event's stream id. */
  entry: string;
  type: string;
  at: number;
  attempt: number;
  error: string | null;
  into: string | null;
  /** A failed or dead event's ending (lua/include/attempt.lua), else null. */
  ending?: string | null;
  /** A completed event's kept result as JSON ('' for none), when it carried one. */
  result?: string;
}

export class Waiter {
  /** Events at or before this stream id happened before the waiter's first read. */
  from = '';
  private wake: ((ended: Finish | 'timeout' | 'closed') => void) | null = null;
  private early: Finish | null = null;

  constructor(
    readonly queue: string,
    readonly id: string,
  ) {}

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

/** One queue's events stream, read for as long as anyone in this scheduler waits on the queue. */
export class Stream {
  /** The last entry id read; null until the first caller's first read says where to start. */
  last: string | null = null;
  private readonly waiting = new Map<string, Set<Waiter>>();

  constructor(readonly key: string) {}

  join(waiter: Waiter): void {
    const set = this.waiting.get(waiter.id);
    if (set) set.add(waiter);
    else this.waiting.set(waiter.id, new Set([waiter]));
  }

  /** Takes `waiter` off; true when nobody waits on the stream any more. */
  leave(waiter: Waiter): boolean {
    const set = this.waiting.get(waiter.id);
    if (set?.delete(waiter) && set.size === 0) this.waiting.delete(waiter.id);
    return this.waiting.size === 0;
  }

  /** Wakes every caller: the scheduler is closing. */
  close(): void {
    for (const set of this.waiting.values()) for (const w of set) w.close();
  }

  /** Hands each entry after `last` to the callers waiting for its task, and moves `last` on. */
  take(entries: StreamEntry[]): void {
    for (const entry of entries) {
      // Read twice (by a polling round, then by the reader it moved to): told once.
      if (this.last !== null && !after(entry.id, this.last)) continue;
      this.last = entry.id;
      const f = entry.fields;
      const type = f.get('type') ?? '';
      const waiters = FINISHES[type] ? this.waiting.get(f.get('id') ?? '') : undefined;
      if (!waiters) continue;
      const finish = {
        entry: entry.id,
        type,
        at: entry.at,
        attempt: Number(f.get('attempt') ?? 0),
        error: f.get('error') ?? null,
        into: f.get('into') ?? null,
        ending: f.get('ending') ?? null,
        result: f.get('result'),
      };
      for (const w of waiters) if (after(entry.id, w.from)) w.notify(finish);
    }
  }
}
