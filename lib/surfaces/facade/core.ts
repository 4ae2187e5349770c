/**
 * What every part of the scheduler object shares: its Context, whether it is closed, and the
 * signal close() aborts. The Scheduler's methods are written by concept, one class a concept, each
 * extending the one before it (puts.ts, task-calls.ts, claims.ts, queues.ts, history.ts,
 * limits.ts, events.ts, workers.ts, schedules.ts), and scheduler.ts is the last: single inheritance
 * is how TypeScript lets one object's methods live in several modules without copying them onto a
 * prototype by hand (a mixin). The order means only that a later concept may use what an earlier
 * one keeps (the workers' `running`, used by every() and close()); each concept's methods are one
 * call into the layers below, after the check that the scheduler is open.
 */
import { bindContext, type Context } from '../../redis/context';
import { ClosedError } from '../../types/errors';
import { Deprecated } from './deprecated';

export abstract class SchedulerCore {
  protected closed = false;
  /** Aborted by close(): ends every events() iterator and every result() wait. */
  protected readonly closing = new AbortController();
  /** The call forms of before 0.2 (pause, resume, events, throughput). */
  protected readonly deprecated: Deprecated;

  constructor(
    protected readonly ctx: Context,
    warn: (message: string) => void,
  ) {
    bindContext(this, ctx);
    this.deprecated = new Deprecated(ctx, warn);
  }

  /** Throws a ClosedError once the scheduler is closed: the check of the synchronous methods. */
  protected live(): void {
    if (this.closed) throw new ClosedError('scheduler');
  }

  /**
   * Runs `fn` unless the scheduler is closed. Every rejection is a DocketError: Redis errors are
   * mapped (fromRedisError), a caller's hash function that throws is a HashFunctionError
   * (hashing.ts), and a record in Redis that is not JSON an UnreadableRecordError (parseRecord).
   */
  protected async open<R>(fn: () => Promise<R>): Promise<R> {
    this.live();
    return fn();
  }
}
