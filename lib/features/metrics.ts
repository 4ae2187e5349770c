/**
 * Prometheus metrics through prom-client (an optional peer dependency, loaded only here). Two kinds:
 *
 * - Read from Redis when the registry is scraped: the counts by state, the lifetime totals the
 *   scripts keep, and how long the longest-waiting due task has been due. Every process that
 *   exports them reports the same queue-wide figures, which survive restarts; nothing of them is
 *   counted in this process's memory.
 * - Observed in this process, as histograms that Prometheus sums across processes: the queue lag
 *   (run-at to claim) of each task the scheduler claims, and the run time of each handler its
 *   work() loops run. The scheduler and its workers report these (observeClaims, observeRun) under
 *   the scheduler's Context, so two schedulers in one process never count each other's tasks.
 */
import { COUNTED_STATES } from './admin';
import type { QueueStats } from '../types/queues';
import type { PreviewListOptions, PreviewPage } from '../types/lists';
import type { Context } from '../redis/context';
import { MetricsRegisteredError, MissingPeerError } from '../types/errors';
import { metricsOptions, metricsRegistry, parse } from '../domain/options';
import type { MetricsOptions, MetricsRegistry } from '../types/metrics';

/** What else a prom-client Registry has that registerMetrics uses when it is there (a registry of another make may lack it). */
interface Lookup {
  getSingleMetric?: unknown;
  removeSingleMetric?: unknown;
}

/** The scheduler calls registerMetrics needs. */
interface Source {
  queues(): Promise<string[]>;
  stats(options: { queue: string }): Promise<QueueStats>;
  list(state: 'ready' | 'delayed', options: PreviewListOptions): Promise<PreviewPage>;
}

/** One queue at one scrape: its stats, and the age (s) of its longest-waiting due task. */
type Snapshot = Array<{ queue: string; stats: QueueStats; oldest: number }>;

/** Lifetime totals exported as counters: metric name (after the prefix) and QueueTotals field. */
const COUNTERS = [
  ['put_total', 'Calls of put that reached Redis (added + deduplicated + replaced)', (s: QueueStats) => s.totals.added + s.totals.deduplicated + s.totals.replaced],
  ['added_total', 'Puts that stored a new task', (s: QueueStats) => s.totals.added],
  ['deduplicated_total', 'Puts that found a live duplicate', (s: QueueStats) => s.totals.deduplicated],
  ['replaced_total', 'Puts that replaced a pending task (replace, debounce)', (s: QueueStats) => s.totals.replaced],
  ['merged_total', 'Failed until-start tasks merged into a waiting one instead of retried', (s: QueueStats) => s.totals.merged],
  ['completed_total', 'Tasks acked', (s: QueueStats) => s.totals.completed],
  ['failed_total', 'Failed attempts (fail() and lapsed leases)', (s: QueueStats) => s.totals.failed],
  ['dead_total', 'Tasks that used up their attempts', (s: QueueStats) => s.totals.dead],
  ['expired_total', 'Tasks dropped unclaimed after their expiry', (s: QueueStats) => s.totals.expired],
  ['lease_lost_total', 'Leases that lapsed before an ack or fail', (s: QueueStats) => s.totals.leaseLost],
] as const;

/**
 * Bucket bounds (seconds) of both histograms: prom-client's defaults (5 ms to 10 s), then on to an
 * hour, since a backlog waits, and a job runs, for minutes as often as for milliseconds.
 */
export const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** One scrape reads each queue's stats once, however many metrics use them. */
const SNAPSHOT_MS = 500;

/**
 * Ready tasks read per queue and scrape for the oldest due one, in claim order (priority levels,
 * fair groups, normal tasks, parked ones): the head of the line, and a little past it.
 */
const READY_PAGE = 100;

/** What one registerMetrics call observes of its scheduler's claims and handlers. */
interface Observer {
  claimed(queue: string, now: number, tasks: ReadonlyArray<{ readonly runAt: number }>): void;
  ran(queue: string, ms: number): void;
}

/** The observers of each scheduler, by its Context: registerMetrics adds one, claims and workers tell them. */
const observers = new WeakMap<Context, Observer[]>();

/** A claim of `owner`'s: one queue-lag observation per task leased, both times on the Redis clock. */
export function observeClaims(owner: Context, queue: string, now: number, tasks: ReadonlyArray<{ readonly runAt: number }>): void {
  // No array made when nobody observes: this runs for every claim and every task of every worker.
  const listening = tasks.length > 0 ? observers.get(owner) : undefined;
  if (listening) for (const o of listening) o.claimed(queue, now, tasks);
}

/** A handler of one of `owner`'s work() loops has returned or thrown after `ms`. */
export function observeRun(owner: Context, queue: string, ms: number): void {
  const listening = observers.get(owner);
  if (listening) for (const o of listening) o.ran(queue, ms);
}

export function registerMetrics(source: Source, registry: MetricsRegistry, options?: MetricsOptions, owner?: Context): void {
  parse(metricsRegistry, registry, 'registry');
  const { prefix, queues: listed } = parse(metricsOptions, options === undefined ? {} : options, 'options');
  const prom = loadPromClient();
  // The caller's registry, of whichever prom-client copy made it: only registerMetric is used.
  const registers = [registry as import('prom-client').Registry];
  const histogram = (help: string) => (name: string) => new prom.Histogram({ name, help, labelNames: ['queue'], buckets: SECONDS_BUCKETS, registers });
  const metrics = define(registry, prefix, [
    ...scraped(prom, registers, snapshots(source, listed)),
    ['queue_lag_seconds', histogram("Seconds from a task's run-at to its claim, at each claim this process made")],
    ['handler_duration_seconds', histogram("Seconds a work() handler of this process ran, to its return or throw (a run timeout's end, if it timed out)")],
  ]);
  if (owner === undefined) return;
  const lag = metrics.get('queue_lag_seconds') as import('prom-client').Histogram;
  const run = metrics.get('handler_duration_seconds') as import('prom-client').Histogram;
  const reported = (queue: string) => listed === undefined || listed.includes(queue);
  const observer: Observer = {
    claimed(queue, now, tasks) {
      // A run-at ahead of the claim (another clock's, in a record written by hand) counts as no lag.
      if (reported(queue)) for (const task of tasks) lag.observe({ queue }, Math.max(0, now - task.runAt) / 1000);
    },
    ran(queue, ms) {
      if (reported(queue)) run.observe({ queue }, ms / 1000);
    },
  };
  observers.set(owner, [...(observers.get(owner) ?? []), observer]);
}

/** A metric's name (after the prefix), and what makes it under a name (the prefix and it). */
type Made = Array<[string, (name: string) => unknown]>;

/** The gauges and counters read from Redis at each scrape, through one snapshot. */
function scraped(prom: PromClient, registers: Array<import('prom-client').Registry>, snapshot: () => Promise<Snapshot>): Made {
  const gauge = (help: string, value: (row: Snapshot[number]) => number) => (name: string) =>
    new prom.Gauge({
      name,
      help,
      labelNames: ['queue'],
      registers,
      async collect() {
        this.reset();
        for (const row of await snapshot()) this.set({ queue: row.queue }, value(row));
      },
    });
  const tasks = (name: string) =>
    new prom.Gauge({
      name,
      help: 'Tasks per queue and state',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const { queue, stats } of await snapshot()) for (const state of COUNTED_STATES) this.set({ queue, state }, stats[state]);
      },
    });
  const byName = (name: string) =>
    new prom.Counter({
      name,
      help: 'Outcomes of named tasks by name: completed, failed (attempts), dead. At most 300 name-outcome pairs per queue; later names count as name "(other)"',
      labelNames: ['queue', 'name', 'outcome'],
      registers,
      async collect() {
        this.reset();
        for (const { queue, stats } of await snapshot()) {
          for (const [task, totals] of Object.entries(stats.byName)) {
            for (const outcome of ['completed', 'failed', 'dead'] as const) this.inc({ queue, name: task === '' ? '(other)' : task, outcome }, totals[outcome]);
          }
        }
      },
    });
  // A lifetime total lives in Redis: each scrape sets its counter to it (reset, then one increment).
  const counter = (help: string, value: (s: QueueStats) => number) => (name: string) =>
    new prom.Counter({
      name,
      help,
      labelNames: ['queue'],
      registers,
      async collect() {
        this.reset();
        for (const { queue, stats } of await snapshot()) this.inc({ queue }, value(stats));
      },
    });
  const oldest = `Seconds the longest-waiting due task has been due (ready, or delayed past its run-at), among the first ${READY_PAGE} ready in claim order; 0 for none`;
  return [
    ['tasks', tasks],
    ['paused', gauge('1 while claims on the queue are paused', (row) => (row.stats.paused ? 1 : 0))],
    ['oldest_ready_age_seconds', gauge(oldest, (row) => row.oldest)],
    ['outcomes_by_name_total', byName],
    ...COUNTERS.map(([name, help, value]): Made[number] => [name, counter(help, value)]),
  ];
}

/**
 * Makes each metric in `made` under `prefix`, after checking that none of their names is taken:
 * prom-client's own refusal ("already been registered") would come half-way, and say nothing of
 * what to do. Returns them by name (after the prefix).
 */
function define(registry: MetricsRegistry, prefix: string, made: Made): Map<string, unknown> {
  const { getSingleMetric, removeSingleMetric } = registry as Lookup;
  const taken = typeof getSingleMetric === 'function' ? made.find(([name]) => getSingleMetric.call(registry, `${prefix}${name}`) !== undefined) : undefined;
  if (taken) throw new MetricsRegisteredError(`${prefix}${taken[0]}`);
  const metrics = new Map<string, unknown>();
  for (const [name, make] of made) {
    try {
      metrics.set(name, make(`${prefix}${name}`));
    } catch (err) {
      // A registry without getSingleMetric (not prom-client's) refuses here instead: take back what was added.
      if (typeof removeSingleMetric === 'function') for (const added of metrics.keys()) removeSingleMetric.call(registry, `${prefix}${added}`);
      throw new MetricsRegisteredError(`${prefix}${name}`, err);
    }
  }
  return metrics;
}

/** Reads the queues' snapshot at most once per SNAPSHOT_MS, however many metrics a scrape collects. */
function snapshots(source: Source, listed: string[] | undefined): () => Promise<Snapshot> {
  let cached: { at: number; snapshot: Promise<Snapshot> } | null = null;
  return () => {
    if (!cached || Date.now() - cached.at > SNAPSHOT_MS) {
      const read = async () => {
        const queues = listed ?? (await source.queues());
        return Promise.all(queues.map(async (queue) => ({ queue, ...(await readQueue(source, queue)) })));
      };
      cached = { at: Date.now(), snapshot: read() };
      // A failed read is not kept: the next scrape tries again.
      cached.snapshot.catch(() => (cached = null));
    }
    return cached.snapshot;
  };
}

/**
 * A queue's stats, and how long (s) its longest-waiting due task has been due: the oldest run-at
 * among the first READY_PAGE ready tasks and the earliest delayed one. A delayed task is due once
 * its run-at passes, but moves to ready only at the queue's next claim: with no worker claiming,
 * due tasks stay delayed, and that is when this age matters most.
 */
async function readQueue(source: Source, queue: string): Promise<{ stats: QueueStats; oldest: number }> {
  const [stats, ready, delayed] = await Promise.all([
    source.stats({ queue }),
    source.list('ready', { queue, limit: READY_PAGE, preview: 1 }),
    source.list('delayed', { queue, limit: 1, preview: 1 }),
  ]);
  // Each page on its own read of the Redis clock; a run-at no Date can hold (a damaged record) is left out.
  const ages = [...ready.tasks.map((t) => ready.now - t.runAt), ...delayed.tasks.map((t) => delayed.now - t.runAt)].filter(Number.isFinite);
  return { stats, oldest: Math.max(0, ...ages) / 1000 };
}

type PromClient = typeof import('prom-client');

function loadPromClient(): PromClient {
  try {
    return require('prom-client') as PromClient;
  } catch (err) {
    throw new MissingPeerError('prom-client', 'registerMetrics()', err);
  }
}
