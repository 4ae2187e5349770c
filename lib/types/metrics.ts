/**
 * What registerMetrics() needs of a prom-client registry, and its options (lib/features/metrics.ts
 * defines the metrics).
 */
/** What registerMetrics needs of a prom-client Registry (any prom-client 14 or 15). */
export interface MetricsRegistry {
  /** Adds a metric to the registry, as prom-client's `Registry.registerMetric` does. */
  registerMetric(metric: unknown): void;
}

/** Options of {@link Scheduler.registerMetrics}. */
export interface MetricsOptions {
  /** Queues to report. Default: every queue in the registry of queue names, read at each scrape. */
  queues?: string[];
  /** Prefix of every metric name. Default 'docket_'. */
  prefix?: string;
}
