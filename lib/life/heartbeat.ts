/**
 * A worker's heartbeat: its entry in the queue's `workers` set, with a deadline on the Redis clock
 * (lua/include/alive.lua). A worker that holds tasks is busy: one timer beats every interval, and
 * each beat, one call for all its running tasks, renews its entry, extends the leases that need it
 * (keep-alive.ts says when), ends its tasks cancelled while they ran, and lapses the leases of any
 * worker whose heartbeat ran out (crashed, or frozen), so their tasks are re-delivered within about
 * deadline + interval instead of after a full lease. A worker that holds none is idle and does not
 * beat at all: each claim it sends renews its entry, for as long as its next wait can last, lapses
 * dead workers' leases as a beat would, and wakes it at the deadline of the first busy worker, to
 * look whether that one died. An idle worker thus sends only its wait and the claim behind it.
 *
 * The beat runs on the worker's event loop, so a handler that blocks the loop (a synchronous PDF
 * render, a huge JSON.parse) also stops the beats: past the deadline other workers take this one
 * for dead and run its tasks again. Each beat measures how late it fired (the loop's lag) and
 * reports a lag of half the deadline or more, so the cause shows up before tasks run twice.
 *
 * A beat's cancel: a task cancelled while it ran (cancel with `running`, from any process) is
 * ended by its holder's next beat, which hands its hash to `cancelled` to abort the handler: a
 * cancel reaches its holder within one interval, with no read per task.
 */
import { performance } from 'node:perf_hooks';
import type { Context } from '../redis/context';
import { EventLoopBlockedError } from '../types/errors';
import type { QueueKeys } from '../domain/keys';
import { HEARTBEAT_DEADLINE_MS, HEARTBEAT_INTERVAL_MS } from '../domain/options';
import { beat, type BeatReply, type Extension } from '../ops/beat';
import type { ClaimInput } from '../ops/claim';
import { MAX_IDLE_MS } from './idle';
import { KeptLease } from './pipeline/keep-alive';
import type { Run } from './pipeline/stage';

/** The default deadline: a worker counts as gone once its heartbeat is this old. */
export const HEARTBEAT_TTL_MS = HEARTBEAT_DEADLINE_MS;
/** The default interval: four beats per deadline, so one late beat does not make it look gone. */
export const HEARTBEAT_EVERY_MS = HEARTBEAT_INTERVAL_MS;
/** Beats in a row that find nothing held before a busy worker tells Redis it is idle (no flapping between tasks). */
const IDLE_AFTER_BEATS = 2;

export interface HeartbeatTiming {
  /** ms between beats. */
  interval: number;
  /** ms a beat counts for: the worker looks gone once its last beat is this old. */
  deadline: number;
  /** The worker's lease (ms): its leases are extended by this much, a third of it before they end. */
  lease: number;
}

/** What a heartbeat tells its worker, and asks of it. */
export interface HeartbeatHost {
  /** Whether the worker holds any task (running, leased ahead, gathered for a batch). */
  holding(): boolean;
  /** Told the hashes of this worker's tasks a beat ended as cancelled: their handlers are to stop. */
  cancelled(hashes: string[]): void;
  /** A beat or claim found stored schedules on the queue: the scheduler's runner looks at them. */
  schedules(): void;
  report(err: unknown): void;
}

export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  /** When the last beat fired (performance.now()), to measure how late the next one is. */
  private last = 0;
  /** What Redis was last told: idle (its claims renew it) or busy (its beats do). */
  private told: 'idle' | 'busy' = 'idle';
  /** Beats in a row that found nothing held. */
  private empty = 0;
  /** What the beat that turned this worker idle answered as the first busy worker's deadline, until a wait takes it. */
  private watch: number | null = null;
  private stopped = false;
  /** The leases kept alive, one per running task (keep()). */
  private readonly leases = new Set<KeptLease>();
  /** ms between beats while busy: the interval, or a third of the lease when that is shorter. */
  private readonly every: number;

  constructor(
    private readonly ctx: Context,
    private readonly keys: QueueKeys,
    private readonly worker: string,
    private readonly host: HeartbeatHost,
    private readonly timing: HeartbeatTiming,
  ) {
    this.every = Math.max(10, Math.min(timing.interval, Math.floor(timing.lease / 3)));
  }

  /** The ttl of an idle worker's entry: its longest wait, and a deadline for the claim that ends it. */
  private get restTtl(): number {
    return MAX_IDLE_MS + this.timing.deadline;
  }

  /** Enters the workers set (idle), lapsing any dead worker's leases at once. */
  start(): void {
    this.beatSoon(this.restTtl, false, []);
  }

  /** What a claim call carries while the worker is idle: its heartbeat, which the claim renews. */
  claimArgs(): ClaimInput['heartbeat'] {
    if (this.told === 'busy' || this.stopped) return undefined;
    return { beat: this.timing.deadline, rest: this.restTtl, holding: this.host.holding() };
  }

  /**
   * After a claim, before its tasks start: `renewed` says whether it carried the heartbeat
   * (claimArgs), `leased` whether it leased any task. A worker that now holds tasks is busy: its
   * timer starts (and it beats at once if the claim did not renew it as busy).
   */
  claimed(renewed: boolean, leased: boolean, schedules: boolean): void {
    if (schedules) this.host.schedules();
    if (this.told === 'idle' && !this.stopped && (leased || this.host.holding())) this.busy(!renewed);
  }

  /**
   * The worker is about to wait with nothing held: a busy one turns idle, and its last beat says so
   * (its claims renew it from now on). Resolves the earliest deadline of another busy worker
   * (Redis clock), for the wait to end then and look whether that one died; null for none, or when
   * the worker was idle already (its last claim told it that).
   */
  async rest(): Promise<number | null> {
    if (this.stopped) return null;
    // Turned idle by a beat already (nothing held for two beats): that beat's answer, once.
    if (this.told === 'idle') return this.takeWatch();
    this.idle();
    try {
      return (await this.beatOnce(this.restTtl, false, [])).watch;
    } catch (err) {
      this.host.report(err);
      return null;
    }
  }

  /** Keeps `run`'s lease alive while it runs: extended by the beats; returns what stops that. */
  keep(run: Run): () => void {
    const kept = new KeptLease(run, this.timing.lease, this.every);
    this.leases.add(kept);
    if (this.told === 'idle' && !this.stopped) this.busy(true);
    return () => this.leases.delete(kept);
  }

  /** Stops beating and leaves the `workers` set, so nobody takes this worker for crashed. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beatOnce(0, false, []).catch((err: unknown) => this.host.report(err));
  }

  private busy(beatNow: boolean): void {
    this.told = 'busy';
    this.empty = 0;
    this.last = performance.now();
    if (beatNow) this.beatSoon(this.timing.deadline, true, []);
    this.timer = setInterval(() => this.tick(), this.every);
    // A heartbeat alone must not keep the process alive.
    this.timer.unref();
  }

  /** The watch deadline the beat that turned this worker idle answered, for the wait that follows (rest()). */
  private takeWatch(): number | null {
    const watch = this.watch;
    this.watch = null;
    return watch;
  }

  private idle(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.told = 'idle';
  }

  private tick(): void {
    this.checkLag();
    if (!this.host.holding() && ++this.empty >= IDLE_AFTER_BEATS) {
      // Nothing held for a while (and no wait said so: rest()): idle, as this last beat says.
      this.idle();
      return this.beatSoon(this.restTtl, false, [], (_extended, watch) => (this.watch = watch));
    }
    if (this.host.holding()) this.empty = 0;
    const sent = performance.now();
    const due = [...this.leases].filter((kept) => kept.due(sent) > 0);
    const extend: Extension[] = due.map((kept) => ({ id: kept.task.hash, token: kept.task.token, by: kept.by }));
    this.beatSoon(this.timing.deadline, true, extend, (extended) => extended.forEach((until, i) => due[i].answered(until, sent)));
  }

  private beatSoon(ttl: number, busy: boolean, extend: Extension[], then?: (extended: Array<number | null>, watch: number | null) => void): void {
    void this.beatOnce(ttl, busy, extend)
      .then((reply) => then?.(reply.extended, reply.watch))
      .catch((err: unknown) => this.host.report(err)); // the leases are extended at a later beat, until their deadline passes
  }

  /** Reports a beat that fired half a deadline or more late: the loop was blocked that long. */
  private checkLag(): void {
    const now = performance.now();
    const lag = Math.round(now - this.last - this.every);
    this.last = now;
    if (lag < this.timing.deadline / 2) return;
    // The worker's report logs it (a warning with the message) and hands it to onError.
    this.host.report(new EventLoopBlockedError(this.worker, lag, this.timing.deadline));
  }

  private async beatOnce(ttl: number, busy: boolean, extend: Extension[]): Promise<BeatReply> {
    const reply = await this.ctx.scripts.run(beat, this.keys, { worker: this.worker, ttl, events: this.ctx.options.eventsMaxLength, busy, extend });
    if (reply.cancelled.length > 0) this.host.cancelled(reply.cancelled);
    if (reply.schedules) this.host.schedules();
    return reply;
  }
}
