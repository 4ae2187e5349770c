/**
 * An idle worker's wait. It does not poll: it blocks with BLPOP on the queue's wake list, on a
 * connection of its own, until a put (or another worker handing over) pushes a token, or until
 * its own timer, armed for the next run-at or lease end on the Redis clock, ends the wait with
 * CLIENT UNBLOCK. BLPOP's own timeout is only a backstop: Redis checks blocking timeouts just `hz`
 * times a second, which would make delayed tasks up to 100 ms late.
 */
import type { Standalone } from './connection';
import { withDeadline } from './deadline';
import type { Context } from './context';
import type { QueueKeys } from './keys';

/** The longest an idle worker waits before it looks again on its own (a safety net, not polling). */
export const MAX_IDLE_MS = 5000;
/** Retry an unblock this often while the BLPOP has not reached the server yet. */
const UNBLOCK_RETRY_MS = 2;

export class IdleWait {
  private blocker: Standalone | null = null;
  /** The blocker's CLIENT ID while it waits in BLPOP, so a timer or close() can unblock it. */
  private blockedId: Promise<number> | null = null;
  private stopped = false;
  /** Ends the current wait at once, without a word to Redis (close() must not wait on a frozen one). */
  private cancel: (() => void) | null = null;

  constructor(
    private readonly ctx: Context,
    private readonly keys: QueueKeys,
    private readonly report: (err: unknown) => void,
  ) {}

  /** Waits until woken, or until `nextDue` (both on the Redis clock, so only their difference counts). */
  async wait(now: number, nextDue: number | null): Promise<void> {
    const ms = nextDue === null ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, nextDue - now);
    if (ms <= 0 || this.stopped) return;
    const limit = this.ctx.options.commandTimeout;
    if (!this.blocker) this.blocker = await this.ctx.conn.duplicate(this.keys.wake, limit);
    if (this.stopped) return;
    // Without CLIENT UNBLOCK (an ACL that refuses it) no timer can end the wait: BLPOP's own
    // timeout must, at the due time, late by up to 1/hz s. With it, the timeout is a backstop.
    const backstop = this.ctx.unblock ? Math.ceil(ms / 1000) + 1 : ms / 1000;
    // Pipelined: one round trip.
    this.blockedId = this.ctx.unblock ? this.blocker.sendCommand<number>(['CLIENT', 'ID']) : null;
    const popped = this.blocker.sendCommand(['BLPOP', this.keys.wake, backstop.toFixed(3)]);
    const timer = this.ctx.unblock ? setTimeout(() => void this.unblock(), ms) : undefined;
    const cancelled = new Promise<void>((resolve) => (this.cancel = resolve));
    try {
      // A connection that hangs (a network black hole) would leave BLPOP pending for ever: the
      // watchdog gives up after the backstop plus a command deadline, and the loop starts over.
      await Promise.race([withDeadline(Promise.all([this.blockedId, popped]), backstop * 1000 + limit, 'idle wait'), cancelled]);
    } finally {
      clearTimeout(timer);
      this.blockedId = null;
      this.cancel = null;
    }
  }

  /**
   * Ends the current wait now, and any later one at once (the worker is closing). The BLPOP is
   * left to reset(), which drops its connection: an unblock would wait on Redis, which may be frozen.
   */
  interrupt(): void {
    this.stopped = true;
    this.cancel?.();
  }

  /** Drops the blocking connection; the next wait opens a new one (it may be what broke). */
  async reset(): Promise<void> {
    const blocker = this.blocker;
    this.blocker = null;
    if (blocker?.isOpen) await blocker.disconnect().catch(() => {});
  }

  /** CLIENT UNBLOCK, retried while the BLPOP has not reached the server yet. */
  private async unblock(): Promise<void> {
    const pending = this.blockedId;
    if (!pending) return;
    try {
      const id = await pending;
      const done = await this.ctx.conn.send(this.keys.wake, ['CLIENT', 'UNBLOCK', String(id)]);
      if (done === 0 && this.blockedId === pending) setTimeout(() => void this.unblock(), UNBLOCK_RETRY_MS);
    } catch (err) {
      this.report(err); // the BLPOP backstop still ends the wait
    }
  }
}
