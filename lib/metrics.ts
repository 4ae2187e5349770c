/**
 * Prometheus metrics through prom-client (an optional peer dependency, loaded only here). The
 * values are read from Redis when the registry is scraped: the counts by state, and the lifetime
 * totals the scripts keep. So every process that exports them reports the same queue-wide figures,
 * which survive restarts, and nothing is counted in this process's memory.
 */
import { STATES, type QueueStats } from './admin';
import { MissingPeerError } from './errors';
import { metricsOptions, metricsRegistry, parse } from './options';

/** What registerMetrics needs of a prom-client Registry (any prom-client 14 or 15). */
export interface MetricsRegistry {
  registerMetric(metric: unknown): void;
}

export interface MetricsOptions {
  /** Queues to report. Default: every queue in the registry of queue names, read at each scrape. */
  queues?: string[];
  /** Prefix of every metric name. Default 'docket_'. */
  prefix?: string;
}

/** The scheduler calls registerMetrics needs. */
interface Source {
  queues(): Promise<string[]>;
  stats(options: { queue: string }): Promise<QueueStats>;
}

type Snapshot = Array<{ queue: string; stats: QueueStats }>;

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

/** One scrape reads each queue's stats once, however many metrics use them. */
const SNAPSHOT_MS = 500;

export function registerMetrics(source: Source, registry: MetricsRegistry, options?: MetricsOptions): void {
  parse(metricsRegistry, registry, 'registry');
  const { prefix, queues: listed } = parse(metricsOptions, options === undefined ? {} : options, 'options');
  const prom = loadPromClient();
  // The caller's registry, of whichever prom-client copy made it: only registerMetric is used.
  const registers = [registry as import('prom-client').Registry];
  let cached: { at: number; snapshot: Promise<Snapshot> } | null = null;
  const snapshot = (): Promise<Snapshot> => {
    if (!cached || Date.now() - cached.at > SNAPSHOT_MS) {
      const read = async () => {
        const queues = listed ?? (await source.queues());
        return Promise.all(queues.map(async (queue) => ({ queue, stats: await source.stats({ queue }) })));
      };
      cached = { at: Date.now(), snapshot: read() };
      // A failed read is not kept: the next scrape tries again.
      cached.snapshot.catch(() => (cached = null));
    }
    return cached.snapshot;
  };

  new prom.Gauge({
    name: `${prefix}tasks`,
    help: 'Tasks per queue and state',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      this.reset();
      for (const { queue, stats } of await snapshot()) for (const state of STATES) this.set({ queue, state }, stats[state]);
    },
  });
  new prom.Gauge({
    name: `${prefix}paused`,
    help: '1 while claims on the queue are paused',
    labelNames: ['queue'],
    registers,
    async collect() {
      this.reset();
      for (const { queue, stats } of await snapshot()) this.set({ queue }, stats.paused ? 1 : 0);
    },
  });
  new prom.Counter({
    name: `${prefix}outcomes_by_name_total`,
    help: 'Outcomes of named tasks by name: completed, failed (attempts), dead. At most 300 name-outcome pairs per queue; later names count as name "(other)"',
    labelNames: ['queue', 'name', 'outcome'],
    registers,
    async collect() {
      this.reset();
      for (const { queue, stats } of await snapshot()) {
        for (const [name, totals] of Object.entries(stats.byName)) {
          for (const outcome of ['completed', 'failed', 'dead'] as const) this.inc({ queue, name: name === '' ? '(other)' : name, outcome }, totals[outcome]);
        }
      }
    },
  });
  for (const [name, help, value] of COUNTERS) {
    new prom.Counter({
      name: `${prefix}${name}`,
      help,
      labelNames: ['queue'],
      registers,
      // The total lives in Redis: each scrape sets the counter to it (reset, then one increment).
      async collect() {
        this.reset();
        for (const { queue, stats } of await snapshot()) this.inc({ queue }, value(stats));
      },
    });
  }
}

type PromClient = typeof import('prom-client');

function loadPromClient(): PromClient {
  try {
    return require('prom-client') as PromClient;
  } catch (err) {
    throw new MissingPeerError('prom-client', 'registerMetrics()', err);
  }
}
