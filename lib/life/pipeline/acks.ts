/**
 * The acks of a worker's finished tasks, waiting for the next call to Redis: the outcome stage
 * queues them, and the worker's loop hands them to its next claim call, which acks them on the way
 * (one round trip per task for a busy worker). While no claim is coming soon (the loop is idle,
 * backing off or closing), they are sent on their own. An ack whose outcome is unknown (a lost
 * reply) is sent again, up to ACK_TRIES calls: a retried ack with the same token is answered as
 * the first was, so the handler's work is not repeated for a lost reply.
 */
import { ClosedError, IndeterminateError } from '../../types/errors';
import type { Task } from '../../types/task';

/** A finished task whose ack waits for the next call to Redis. */
export interface PendingAck {
  task: Task<unknown>;
  /** The handler's result as JSON, '' when none or not kept. */
  result: string;
  /** Calls that carried this ack and whose outcome is unknown. */
  tries: number;
  settle: (outcome: { acked: boolean } | { error: unknown }) => void;
}

/** Tries of an ack whose reply was lost, before the lease is left to lapse. */
const ACK_TRIES = 3;

export class Acks {
  private readonly pending: PendingAck[] = [];
  /** The flush under way, if any, so close() can wait for it. */
  private flushing: Promise<void> | null = null;
  /** Set once close() gave up on in-flight work: acks whose reply was lost are not sent again. */
  private abandoned = false;
  /** Set while a flush waits for the end of this turn, so acks that come in one turn go in one call. */
  private soonFlush = false;

  constructor(
    /** One call that acks `acks` and leases nothing; its reply says, per ack, whether it was taken. */
    private readonly ackBatch: (acks: PendingAck[]) => Promise<{ acked: boolean[] }>,
    /** Whether no claim call is coming soon to take the acks along. */
    private readonly waiting: () => boolean,
    private readonly report: (err: unknown) => void,
  ) {}

  get length(): number {
    return this.pending.length;
  }

  /** Queues the ack of a finished task; resolves true once acked, false when its lease was lost. */
  soon(task: Task<unknown>, result: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const settle = (outcome: { acked: boolean } | { error: unknown }) => ('acked' in outcome ? resolve(outcome.acked) : reject(outcome.error));
      this.pending.push({ task, result, tries: 0, settle });
      // No claim coming soon: sent on their own, those of one turn (a batch's) together.
      if (this.waiting() && !this.soonFlush) {
        this.soonFlush = true;
        setImmediate(() => {
          this.soonFlush = false;
          void this.flush();
        });
      }
    });
  }

  /** Takes every queued ack, for a claim call to carry. */
  take(): PendingAck[] {
    return this.pending.splice(0);
  }

  /** Settles the acks a call carried, from its reply. */
  settle(acks: readonly PendingAck[], acked: readonly boolean[]): void {
    acks.forEach((a, i) => a.settle({ acked: acked[i] }));
  }

  /** After a failed call: acks whose outcome is unknown go again; the rest fail (their leases lapse). */
  retry(acks: PendingAck[], err: unknown): number {
    const again = acks.filter((a) => err instanceof IndeterminateError && !this.abandoned && ++a.tries < ACK_TRIES);
    for (const a of acks) if (!again.includes(a)) a.settle({ error: err });
    this.pending.unshift(...again);
    return again.length;
  }

  /** Sends queued acks on their own while no claim call is coming to take them along. */
  flush(): Promise<void> {
    this.flushing ??= this.sendAll().finally(() => (this.flushing = null));
    return this.flushing;
  }

  /** close() gave up: queued acks fail at once, and none whose reply is lost is sent again. */
  abandon(): void {
    this.abandoned = true;
    for (const a of this.pending.splice(0)) a.settle({ error: new ClosedError('worker') });
  }

  /** The flush under way, for close() to wait for. */
  sent(): Promise<void> {
    return this.flushing ?? Promise.resolve();
  }

  private async sendAll(): Promise<void> {
    while (this.pending.length > 0 && this.waiting()) {
      const tries = Math.max(...this.pending.map((a) => a.tries));
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 50 * tries));
      const acks = this.pending.splice(0);
      try {
        this.settle(acks, (await this.ackBatch(acks)).acked);
      } catch (err) {
        // Acks that failed for good are reported by their task's own outcome.
        if (this.retry(acks, err) > 0) this.report(err);
      }
    }
  }
}
