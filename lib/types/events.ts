/**
 * A queue's events as callers read them: what each event reports, events()'s and throughput()'s
 * options and answers, and the Scheduler's calls that read them (lib/features/events.ts reads the
 * stream).
 */
import type { Json } from './json';
import type { Ending } from './outcome';
import type { QueueOption } from './queue';

/**
 * What an event reports. The outcome events, always written (eventsMaxLength > 0): `completed` (a
 * task was acked), `failed` (an attempt failed, or its lease lapsed, and the task will be retried),
 * `dead` (it ran out of attempts or threw an UnrecoverableError, or a task it was put after failed),
 * `expired` (dropped unclaimed), `deduplicated` (a put found a live duplicate), `replaced` (a put
 * replaced a pending task), `merged` (a failed until-start task was merged into a waiting one,
 * which `into` names), `cancelled` (cancel() or clean() ended a pending task, a task cancelled with
 * `running: true` ended, or a task it was put after failed under onDependencyFailure 'cancel'),
 * `progress` (a handler reported progress), `snoozed` (a handler called task.snooze(): `attempt` is
 * the attempt it ended, not counted), `paused` and `resumed` (the queue, or the one group `group`
 * names, was paused or resumed; written only by a call that changed it). Then the lifecycle events
 * ({@link LifecycleEventType}), written only with the scheduler's option `events: 'all'`.
 */
export type EventType =
  'completed' | 'failed' | 'dead' | 'expired' | 'deduplicated' | 'replaced' | 'merged' | 'cancelled' | 'progress' | 'snoozed' | LifecycleEventType | 'paused' | 'resumed';

/**
 * The per-task lifecycle events (BullMQ's QueueEvents), written only with the scheduler's option
 * `events: 'all'`: `added` (a put added a task; a duplicate is `deduplicated`), `active` (a claim
 * leased it), `lapsed` (its lease ran out: it goes back, or dead), `retrying` (a failed attempt will
 * be retried, at `runAt`), `drained` (a claim leased the queue's last ready task).
 */
export type LifecycleEventType = 'added' | 'active' | 'lapsed' | 'retrying' | 'drained';

/** One event of a queue's events stream, as {@link Scheduler.events} yields it. */
export interface QueueEvent {
  /** The stream entry id (`<ms>-<seq>`): events are ordered by it; pass it as `from` to resume after it. */
  readonly id: string;
  /** The queue it happened in. */
  readonly queue: string;
  /** What happened: an {@link EventType}. */
  readonly type: EventType;
  /** The task's hash, as put() returned it; '' for the queue's own events (drained, paused, resumed). */
  readonly hash: string;
  /** When it happened: epoch ms on the Redis clock. */
  readonly at: number;
  /**
   * Which delivery it was (completed, failed, dead, merged, progress, snoozed, active, lapsed,
   * retrying; expired and cancelled when the task had deliveries), else null.
   */
  readonly attempt: number | null;
  /**
   * The failure, cut to its first 500 characters (failed, dead, merged; cancelled when a task it was
   * put after failed), else null; get() and listDead() have it whole.
   */
  readonly error: string | null;
  /**
   * How the attempt ended, an {@link Ending}: for `failed`, `dead` and `retrying`, 'failed',
   * 'unrecoverable' or 'retry-later'; for `snoozed` (the handler called task.snooze()), 'snoozed'.
   * Else null.
   */
  readonly ending: Ending | null;
  /** The progress reported (progress events of up to 1 KiB of JSON), else null; get() has a larger one. */
  readonly progress: Json | null;
  /** For `merged`: the hash of the waiting task the failed until-start task was merged into; else null. */
  readonly into: string | null;
  /** The task's name (put's `name`) when it has one, else null (and for deduplicated and replaced events). */
  readonly name: string | null;
  /** For `completed`: the task's kept result (keepResult) when its JSON is at most 1 KiB; else null. */
  readonly result: Json | null;
  /** For `active` and `lapsed`: the worker that held the lease (its id, host:pid:random); else null. */
  readonly worker: string | null;
  /**
   * For `added` and `retrying`: when the task runs (its run-at, epoch ms on the Redis clock; for a
   * retry, the back-off's time or the one a RetryLaterError gave); else null.
   */
  readonly runAt: number | null;
  /** For `paused` and `resumed` of one fair group: the group; null for the whole queue's, and other events. */
  readonly group: string | null;
  /**
   * Present (true) when its result or progress is encrypted with a key this scheduler lacks
   * ({@link SchedulerOptions.encryption}): those read as null.
   */
  readonly encrypted?: true;
}

/** Options of {@link Scheduler.events}. */
export interface EventsOptions {
  /**
   * Where to start: 'now', only events after this call (fixed when events() is called, so a put
   * made after it is never missed); 'start', the oldest the stream still holds; or an event id, the
   * events after it. Default: 'now'.
   */
  from?: 'now' | 'start' | string;
  /** Aborting it ends the iteration, also while it waits; closing the scheduler ends every iterator too. */
  signal?: AbortSignal;
}

/** Options of {@link Scheduler.throughput}. */
export interface ThroughputOptions {
  /** How far back to look, in ms. Default 10 minutes, at most 24 hours. */
  window?: number;
  /** Width of each bucket, in ms. Default 10 s; at most 1000 buckets. */
  bucket?: number;
  /**
   * Where the counts come from: `'events'`, the capped events stream (every event type, to the
   * millisecond, as far back as the stream holds); `'minutes'`, the per-minute counters of the
   * last 24 hours (completed, failed and dead only; `bucket` a whole number of minutes). Default
   * `'auto'`: the counters when the window is over 10 minutes and the bucket a whole number of
   * minutes, else the stream.
   */
  source?: 'auto' | 'events' | 'minutes';
}

/** A queue's outcomes per time bucket, as {@link Scheduler.throughput} counts them. */
export interface Throughput {
  /** The Redis server's clock when read (epoch ms); the last bucket ends here. */
  now: number;
  /** Width of each bucket, in ms. */
  bucket: number;
  /**
   * The oldest time the counts cover: later than `now - window` when the capped stream no longer
   * holds the start of the window (a busy queue, or a small eventsMaxLength).
   */
  since: number;
  /** Oldest first; `at` is each bucket's start. */
  buckets: Array<
    {
      /** The bucket's start, epoch ms on the Redis clock. */
      at: number;
    } & Record<EventType, number>
  >;
  /** Where the counts came from (options.source): the events stream, or the per-minute counters. */
  source: 'events' | 'minutes';
}

/** The calls that watch a queue's outcomes: as they happen, and counted per time bucket. Part of {@link Scheduler}. */
export interface SchedulerEvents {
  /**
   * The outcomes of a queue's tasks (completed, failed, dead, expired, deduplicated) as they
   * happen, from any process, read from the queue's capped events stream.
   */
  events(options?: EventsOptions & QueueOption): AsyncIterableIterator<QueueEvent>;
  /** @deprecated The queue as a string: pass `{ queue, ...options }`, as every other method takes it. */
  events(queue: string | undefined, options?: EventsOptions): AsyncIterableIterator<QueueEvent>;
  /**
   * A queue's outcomes per time bucket over a recent window (at most 24 hours): counted from its
   * capped events stream, or, for a window over 10 minutes in whole-minute buckets (or
   * `source: 'minutes'`), read from the per-minute counters the queue keeps for a day.
   */
  throughput(options?: ThroughputOptions & QueueOption): Promise<Throughput>;
  /** @deprecated The queue as a string: pass `{ queue, ...options }`, as every other method takes it. */
  throughput(queue: string | undefined, options?: ThroughputOptions): Promise<Throughput>;
}
