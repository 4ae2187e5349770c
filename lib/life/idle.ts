/**
 * An idle worker's wait. It does not poll: it blocks with BLPOP on the queue's wake list, on a
 * connection of its own, until a put (or another worker handing over) pushes a token, or until
 * its own timer, armed for the next run-at or lease end on the Redis clock, ends the wait with
 * CLIENT UNBLOCK. BLPOP's own timeout is only a backstop: Redis checks blocking timeouts just `hz`
 * times a second, which would make delayed tasks up to 100 ms late.
 *
 * Pickup in one step: the worker's next claim is sent right behind the BLPOP, on the same
 * connection. Redis runs a client's commands in order, so the claim runs the moment the BLPOP
 * returns, with no round trip to the worker in between: a put reaches an idle worker's handler
 * after one reply, not two, and a timer's CLIENT UNBLOCK starts the claim of the task it woke for.
 */
import type { Standalone } from '../types/client';
import { withDeadline } from '../redis/deadline';
import type { Context } from '../redis/context';
import { ClosedError, fromRedisError } from '../types/errors';
import type { QueueKeys } from '../domain/keys';
import type { Via } from '../redis/scripts';
import { blpop, clientId, clientUnblock } from '../ops/commands/server';
import { dedicated, routed } from '../ops/commands/via';
import { notBefore } from './alarm';

/** The longest an idle worker waits before it looks again on its own (a safety net, not polling). */
export const MAX_IDLE_MS = 5000;
/** Retry an unblock this often while the BLPOP has not reached the server yet. */
const UNBLOCK_RETRY_MS = 2;
/**
 * How long a closing worker waits at least for the claim behind its BLPOP (at most commandTimeout):
 * the claim may lease a task, which the worker then hands back rather than leave it to its lease.
 */
const CLOSE_CLAIM_MIN_MS = 250;

/** A claim to send behind the BLPOP, through `via` (the blocking connection). It never rejects. */
export type IdleClaim = (via: Via) => Promise<void>;

export class IdleWait {
  private blocker: Standalone | null = null;
  /** The blocker's CLIENT ID while it waits in BLPOP, so a timer or close() can unblock it. */
  private blockedId: Promise<number> | null = null;
  private stopped = false;
  /** Ends the current wait at once, without a word to Redis (close() must not wait on a frozen one). */
  private cancel: (() => void) | null = null;
  /** Gives up on the claim behind the BLPOP (close() on a Redis that does not answer). */
  private cut: ((err: Error) => void) | null = null;
  private cutTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly keys: QueueKeys,
    private readonly report: (err: unknown) => void,
  ) {}

  /**
   * Waits until woken, or until `nextDue` (both on the Redis clock, so only their difference
   * counts). With `claim`, and CLIENT UNBLOCK allowed, the claim goes out behind the BLPOP (see the
   * header) and has settled when this resolves `true`; `false` means it was not sent.
   */
  async wait(now: number, nextDue: number | null, claim?: IdleClaim): Promise<boolean> {
    const ms = nextDue === null ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, nextDue - now);
    if (ms <= 0 || this.stopped) return false;
    const limit = this.ctx.options.commandTimeout;
    if (!this.blocker) this.blocker = await this.ctx.conn.duplicate(this.keys.wake, limit);
    if (this.stopped) return false;
    const blocker = this.blocker;
    // A timer ends a wait for a due time: BLPOP's own timeout would be late by up to 1/hz s. A
    // wait with nothing due is the safety net, which may be that late: BLPOP's timeout ends it, so
    // an idle worker sends no CLIENT UNBLOCK. Without CLIENT UNBLOCK (an ACL that refuses it) no
    // timer can end a wait: BLPOP's timeout must. With a timer, the timeout is a backstop.
    const timed = this.ctx.unblock && ms < MAX_IDLE_MS;
    const backstop = timed ? Math.ceil(ms / 1000) + 1 : ms / 1000;
    // Pipelined: one round trip.
    this.blockedId = this.ctx.unblock ? clientId(dedicated(blocker)) : null;
    const popped = blpop(dedicated(blocker), this.keys.wake, backstop);
    // Only with CLIENT UNBLOCK: close() must be able to end the BLPOP that the claim waits behind.
    const claimed = this.ctx.unblock && claim ? this.behind(blocker, backstop * 1000 + limit, claim) : null;
    const timer = timed ? notBefore(ms, () => this.unblock()) : undefined;
    const cancelled = new Promise<void>((resolve) => (this.cancel = resolve));
    try {
      // A connection that hangs (a network black hole) would leave BLPOP pending for ever: the
      // watchdog gives up after the backstop plus a command deadline, and the loop starts over.
      await Promise.race([withDeadline(Promise.all([this.blockedId, popped]), backstop * 1000 + limit, 'idle wait'), cancelled]);
    } catch (err) {
      // The claim behind the BLPOP fails with it (reported once, by the claim), not on its own later.
      if (!claimed) throw err;
      this.cut?.(fromRedisError(err, 'idle wait'));
    } finally {
      timer?.clear();
      this.blockedId = null;
      this.cancel = null;
    }
    if (!claimed) return false;
    await claimed;
    return true;
  }

  /**
   * Ends the current wait now, and any later one at once (the worker is closing). A claim sent
   * behind the BLPOP is let run (CLIENT UNBLOCK ends the BLPOP), so that what it leases comes back
   * to the worker, which hands it back; on a Redis that does not answer it is given up after
   * `withinMs` (at least CLOSE_CLAIM_MIN_MS, at most commandTimeout). Otherwise the BLPOP is left to
   * reset(), which drops its connection: an unblock would wait on Redis, which may be frozen.
   */
  interrupt(withinMs: number): void {
    this.stopped = true;
    const cut = this.cut;
    if (cut) {
      this.unblock(true);
      const ms = Math.min(this.ctx.options.commandTimeout, Math.max(CLOSE_CLAIM_MIN_MS, withinMs));
      this.cutTimer = setTimeout(() => cut(new ClosedError('worker')), ms);
    }
    this.cancel?.();
  }

  /** Drops the blocking connection; the next wait opens a new one (it may be what broke). */
  async reset(): Promise<void> {
    const blocker = this.blocker;
    this.blocker = null;
    if (blocker?.isOpen) await blocker.disconnect().catch(() => {});
  }

  /** Sends `claim` behind the BLPOP on `blocker`; its reply is due once the BLPOP returns. */
  private behind(blocker: Standalone, ms: number, claim: IdleClaim): Promise<void> {
    const cutoff = new Promise<never>((_, reject) => (this.cut = reject));
    cutoff.catch(() => {});
    const onBlocker = dedicated(blocker);
    const via: Via = async (args) => {
      try {
        return await withDeadline(Promise.race([onBlocker(args), cutoff]), ms, 'claim');
      } catch (err) {
        throw fromRedisError(err, 'claim');
      }
    };
    // claim() sends synchronously (up to its first await), so the EVALSHA follows the BLPOP.
    return claim(via).finally(() => {
      this.cut = null;
      clearTimeout(this.cutTimer);
    });
  }

  /**
   * CLIENT UNBLOCK, retried while the BLPOP has not reached the server yet: while this wait lasts,
   * or, for close(), while the claim behind it is pending.
   */
  private unblock(closing = false): void {
    const pending = this.blockedId;
    if (!pending) return;
    const cut = this.cut;
    const waiting = () => (closing ? this.cut !== null && this.cut === cut : this.blockedId === pending);
    const limit = this.ctx.options.commandTimeout;
    const attempt = async (): Promise<void> => {
      try {
        const id = await pending;
        const done = await clientUnblock(routed(this.ctx.conn, this.keys.wake, { ms: limit, what: 'unblock' }), id);
        if (!done && waiting()) setTimeout(() => void attempt(), UNBLOCK_RETRY_MS);
      } catch (err) {
        // The BLPOP backstop, or close()'s cut, still ends the wait; a closing worker says nothing.
        if (!closing) this.report(err);
      }
    };
    void attempt();
  }
}
