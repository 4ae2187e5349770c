/**
 * A worker's heartbeat: an entry in the queue's `workers` set with a deadline on the Redis clock,
 * renewed several times per deadline. Each beat also looks for workers whose heartbeat ran out
 * (crashed, or frozen) and lapses their leases at once, so their tasks are re-delivered within
 * about deadline + interval instead of after a full lease.
 *
 * The beat runs on the worker's event loop, so a handler that blocks the loop (a synchronous PDF
 * render, a huge JSON.parse) also stops the beats: past the deadline other workers take this one
 * for dead and run its tasks again. Each beat measures how late it fired (the loop's lag) and
 * reports a lag of half the deadline or more, so the cause shows up before tasks run twice.
 *
 * A beat also ends this worker's tasks that were cancelled while they ran (cancel with `running`,
 * from any process) and hands their hashes to `cancelled`, which aborts their handlers: a cancel
 * reaches its holder within one interval, with no read per task.
 */
import type { Context } from '../redis/context';
import { EventLoopBlockedError } from '../types/errors';
import type { QueueKeys } from '../domain/keys';
import { HEARTBEAT_DEADLINE_MS, HEARTBEAT_INTERVAL_MS } from '../domain/options';
import { beat } from '../ops/beat';

/** The default deadline: a worker counts as gone once its heartbeat is this old. */
export const HEARTBEAT_TTL_MS = HEARTBEAT_DEADLINE_MS;
/** The default interval: four beats per deadline, so one late beat does not make it look gone. */
export const HEARTBEAT_EVERY_MS = HEARTBEAT_INTERVAL_MS;

export interface HeartbeatTiming {
  /** ms between beats. */
  interval: number;
  /** ms a beat counts for: the worker looks gone once its last beat is this old. */
  deadline: number;
}

export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  /** When the last beat fired (performance.now()), to measure how late the next one is. */
  private last = 0;

  constructor(
    private readonly ctx: Context,
    private readonly keys: QueueKeys,
    private readonly worker: string,
    private readonly report: (err: unknown) => void,
    private readonly timing: HeartbeatTiming = { interval: HEARTBEAT_INTERVAL_MS, deadline: HEARTBEAT_DEADLINE_MS },
    /** Told the hashes of this worker's tasks a beat ended as cancelled: their handlers are to stop. */
    private readonly cancelled: (hashes: string[]) => void = () => {},
  ) {}

  start(): void {
    const beat = () => {
      this.checkLag();
      void this.beatOnce(this.timing.deadline).catch(this.report);
    };
    this.last = performance.now();
    beat();
    this.timer = setInterval(beat, this.timing.interval);
    // A heartbeat alone must not keep the process alive.
    this.timer.unref();
  }

  /** Stops beating and leaves the `workers` set, so nobody takes this worker for crashed. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beatOnce(0).catch(this.report);
  }

  /** Reports a beat that fired half a deadline or more late: the loop was blocked that long. */
  private checkLag(): void {
    const now = performance.now();
    const lag = Math.round(now - this.last - this.timing.interval);
    this.last = now;
    if (lag < this.timing.deadline / 2) return;
    // The worker's report logs it (a warning with the message) and hands it to onError.
    this.report(new EventLoopBlockedError(this.worker, lag, this.timing.deadline));
  }

  private async beatOnce(ttl: number): Promise<number> {
    const { lapsed, cancelled } = await this.ctx.scripts.run(beat, this.keys, { worker: this.worker, ttl, events: this.ctx.options.eventsMaxLength });
    if (cancelled.length > 0) this.cancelled(cancelled);
    return lapsed;
  }
}
