/**
 * A worker's heartbeat: an entry in the queue's `workers` set with a short deadline on the Redis
 * clock, renewed several times per ttl. Each beat also looks for workers whose heartbeat ran out
 * (crashed, or frozen) and lapses their leases at once, so their tasks are re-delivered within
 * about HEARTBEAT_TTL_MS + HEARTBEAT_EVERY_MS instead of after a full lease.
 */
import type { Context } from './context';
import type { QueueKeys } from './keys';

/** A worker counts as gone once its heartbeat is this old. */
export const HEARTBEAT_TTL_MS = 2000;
/** How often a worker beats: four beats per ttl, so one late beat does not make it look gone. */
export const HEARTBEAT_EVERY_MS = 500;

export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: Context,
    private readonly keys: QueueKeys,
    private readonly worker: string,
    private readonly report: (err: unknown) => void,
  ) {}

  start(): void {
    const beat = () => void this.send(HEARTBEAT_TTL_MS).catch(this.report);
    beat();
    this.timer = setInterval(beat, HEARTBEAT_EVERY_MS);
    // A heartbeat alone must not keep the process alive.
    this.timer.unref();
  }

  /** Stops beating and leaves the `workers` set, so nobody takes this worker for crashed. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.send(0).catch(this.report);
  }

  private send(ttl: number): Promise<unknown> {
    return this.ctx.scripts.run('beat', this.keys, [this.worker, ttl]);
  }
}
