/**
 * Prefetch: a worker whose handlers are quick leases a few tasks beyond its free slots, so one
 * round trip serves several tasks. Their leases start at the claim (on the Redis clock, as every
 * lease), not when their handler starts: a lease that began later would need a call of its own or
 * the client's clock. What keeps a prefetched task within its lease is that it waits little: only
 * while handlers run under PREFETCH_QUICK_MS on average, at most PREFETCH_HOLD_MS without one of
 * them starting (then the rest are handed back), and only with a lease of PREFETCH_MIN_LEASE_MS or
 * more, well above the longest wait (PREFETCH_HOLD_MS times the most a worker prefetches).
 *
 * Its own module because those rules, the buffer, the hold timer and the handlers' smoothed run
 * time that turns it on and off are one promise (docs/guarantees.md, Prefetch) the worker loop
 * only asks of: how many extra to lease, which to start, and when to give them back.
 */
import type { Context } from '../redis/context';
import type { ParsedWorkOptions } from '../domain/options';
import type { Task } from '../types/task';
import { release } from './holder';

const PREFETCH_TOTAL = 8;
const PREFETCH_QUICK_MS = 5;
const PREFETCH_HOLD_MS = 25;
const PREFETCH_MIN_LEASE_MS = 1000;

/** A prefetched task: leased, waiting for a slot. */
export interface Buffered {
  task: Task<unknown>;
  /** The Redis clock when it was leased, and performance.now() when the reply came. */
  serverNow: number;
  at: number;
}

export class Prefetch {
  /** Prefetched tasks, oldest first. */
  private readonly buffered: Buffered[] = [];
  /** Hands the prefetched tasks back when none has started for PREFETCH_HOLD_MS. */
  private holdTimer: NodeJS.Timeout | null = null;
  /** Prefetched tasks being handed back, so close() can wait for it. */
  private handingBack: Promise<void> = Promise.resolve();
  /** Handler run time in ms, smoothed; Infinity until one has run, so the first claim takes no more than it can start. */
  private runMs = Infinity;

  constructor(
    private readonly ctx: Context,
    private readonly opts: Pick<ParsedWorkOptions, 'concurrency' | 'lease' | 'prefetch'>,
    private readonly report: (err: unknown) => void,
    /** Wakes the worker loop: tasks handed back may leave acks that waited for the claim after them. */
    private readonly wake: () => void,
  ) {}

  /** Tasks prefetched and not started yet. */
  get length(): number {
    return this.buffered.length;
  }

  /** Counts a handler's run time, which turns prefetch on and off. */
  ran(ms: number): void {
    this.runMs = this.runMs === Infinity ? ms : 0.8 * this.runMs + 0.2 * ms;
  }

  /** How many tasks to lease beyond the free slots now (see PREFETCH_TOTAL). */
  extra(): number {
    const most = this.opts.prefetch ?? Math.max(0, PREFETCH_TOTAL - this.opts.concurrency);
    return this.runMs <= PREFETCH_QUICK_MS && this.opts.lease >= PREFETCH_MIN_LEASE_MS ? most : 0;
  }

  /** Keeps a task leased beyond the free slots until a slot frees. */
  keep(task: Task<unknown>, serverNow: number, at: number): void {
    this.buffered.push({ task, serverNow, at });
  }

  /** The oldest `count` prefetched tasks, to start now. */
  take(count: number): Buffered[] {
    return this.buffered.splice(0, count);
  }

  /**
   * Forgets the prefetched tasks among `hashes`, which a beat ended (cancelled while leased): they
   * are not to start, and there is nothing to hand back.
   */
  drop(hashes: readonly string[]): void {
    for (let i = this.buffered.length - 1; i >= 0; i--) if (hashes.includes(this.buffered[i].task.hash)) this.buffered.splice(i, 1);
    if (this.buffered.length === 0 && this.holdTimer) {
      clearTimeout(this.holdTimer);
      this.holdTimer = null;
    }
  }

  /** (Re-)arms the hold timer while tasks are prefetched: a slow handler turns prefetch off. */
  hold(): void {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = this.buffered.length > 0 ? setTimeout(() => this.handBack(), PREFETCH_HOLD_MS) : null;
  }

  /** Hands every prefetched task back to the queue (the delivery not counted), last first so they keep their order. */
  handBack(): void {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    const back = this.buffered.splice(0).reverse();
    if (back.length === 0) return;
    // Until a handler shows it is quick again.
    this.runMs = Math.max(this.runMs, PREFETCH_HOLD_MS);
    // The loop may sleep with acks that waited for the claim after these tasks: they go now.
    this.wake();
    // Sent together, last first: one connection runs them in the order sent, so the first ends up
    // at the head again, and close() waits one commandTimeout for all of them, not one each.
    const sent = back.map(({ task }) => release(this.ctx, task).catch((err: unknown) => this.report(err)));
    this.handingBack = Promise.all([this.handingBack, ...sent]).then(() => {});
  }

  /** Settles once every task handed back so far is back in the queue (or its release failed). */
  handedBack(): Promise<void> {
    return this.handingBack;
  }
}
