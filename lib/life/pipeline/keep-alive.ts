/**
 * Stage `keep-alive`: keeps the task's lease alive while the attempt runs. The worker's heartbeat
 * (heartbeat.ts) extends it, in the one beat per interval that covers all its running tasks, once
 * a third of it has passed, and this stage's KeptLease aborts the handler's signal with a
 * LeaseLostError once the lease is lost. It sits just outside the timeout, so the lease is never
 * extended past the run timeout (plus a moment for the fail to reach Redis), and it stops as soon
 * as the attempt ends: before the slot is freed and before any flush, ack or fail, which run on the
 * lease as it stands.
 */
import { performance } from 'node:perf_hooks';
import { LeaseLostError } from '../../types/errors';
import type { Task } from '../../types/task';
import type { Host, Run, Stage } from './stage';

/** How far past a run timeout the lease is kept: time for the attempt's fail to reach Redis. */
const TIMEOUT_GRACE_MS = 1000;

export function keepAlive(host: Host): Stage {
  return async (run, next) => {
    const stop = (run.stopLease = host.keep(run));
    try {
      return await next();
    } finally {
      stop();
    }
  };
}

/** One running task's lease as its worker's beats keep it: when it ends here, and by how much the next beat extends it. */
export class KeptLease {
  readonly task: Task<unknown>;
  /** When the lease ends (performance.now() time), as the last extension left it. */
  private deadline: number;
  /** Up to the timeout, plus a moment for the attempt's fail to reach Redis before the lease ends. */
  private readonly ends: number;
  /** What the beat under way asked for (ms). */
  by = 0;

  constructor(
    private readonly run: Run,
    private readonly lease: number,
    /** ms between the beats that extend it. */
    private readonly every: number,
  ) {
    const now = performance.now();
    this.task = run.task;
    this.deadline = now + run.leftMs;
    this.ends = run.limit === undefined ? Infinity : now + run.limit + Math.min(lease, TIMEOUT_GRACE_MS);
  }

  /**
   * At a beat sent `now`: how much to extend the lease by (ms), or 0 for not at this beat. It is
   * extended at the last beat before a third of it has passed, to the lease's length (never past
   * the timeout's end);
   * one whose deadline passed unextended is lost, and the handler's signal is aborted.
   */
  due(now: number): number {
    // Snoozed (or being snoozed) by its handler: the lease is given up, not lost.
    if (this.run.controller.snoozed) return 0;
    // A lease held up to the timeout's end is not lost: the attempt's own timer ends it there.
    if (now >= this.deadline) {
      if (this.deadline < this.ends) this.lost();
      return 0;
    }
    // Once a third has passed by the next beat (`every` away): never later than a third in.
    if (this.deadline - now > (this.lease * 2) / 3 + this.every) return 0;
    this.by = Math.min(this.lease, Math.ceil(this.ends - now));
    return Math.max(0, this.by);
  }

  /** The beat's answer for this lease, sent at `sent`: its new deadline, or null when it was lost. */
  answered(until: number | null, sent: number): void {
    if (until === null) return this.lost();
    this.deadline = sent + this.by;
    this.task.leaseUntil = until;
  }

  private lost(): void {
    this.run.controller.abort(new LeaseLostError(this.task.hash));
  }
}
