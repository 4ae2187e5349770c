/**
 * The options of watching a queue from outside its tasks: events(), throughput(), Prometheus
 * metrics and OpenTelemetry tracing. What they take of a caller's library (a Registry, a
 * TracerProvider) is checked by its shape, so docket needs neither package installed to check it.
 */
import { z } from 'zod';
import { queueName } from './names';
import { abortSignal } from './values';

/** instrumentOpenTelemetry(options): a tracer provider, or the global one. */
export const openTelemetryOptions = z.strictObject({
  tracerProvider: z
    .custom<{ getTracer(name: string, version?: string): unknown }>((v) => typeof v === 'object' && v !== null && typeof (v as { getTracer?: unknown }).getTracer === 'function', {
      error: 'expected a TracerProvider (an object with a getTracer method)',
    })
    .optional(),
});

/** events(options): where to start reading, and a signal that ends the iteration. */
export const eventsOptions = z.strictObject({
  from: z.union([z.literal('now'), z.literal('start'), z.string().regex(/^\d+-\d+$/)], { error: "expected 'now', 'start' or an event id such as '1700000000000-0'" }).default('now'),
  signal: abortSignal.optional(),
});

/** throughput(options): a window of at most 24 hours, cut into at most 1000 buckets (1440 whole minutes from the counters). */
export const throughputOptions = z
  .strictObject({
    window: z.number().int().min(1000, { error: 'must be from 1000 to 86400000' }).max(86_400_000, { error: 'must be from 1000 to 86400000' }).default(600_000),
    // Bounded like window (past it, the bucket times made no valid stream id: a RedisError).
    bucket: z.number().int().min(100, { error: 'must be 100 or more' }).max(86_400_000, { error: 'must be at most 86400000' }).default(10_000),
    // Where the counts come from: the events stream, or the per-minute counters (lua/include/minutes.lua).
    source: z.enum(['auto', 'events', 'minutes'], { error: "expected 'auto', 'events' or 'minutes'" }).default('auto'),
  })
  // The per-minute counters have a day of minutes: 24 h in 1-minute buckets is 1,440 of them.
  .refine((o) => o.window / o.bucket <= (o.source !== 'events' && o.bucket % 60_000 === 0 ? 1440 : 1000), {
    error: 'window / bucket must be at most 1000 buckets (1440 in whole minutes from the per-minute counters)',
    path: ['bucket'],
  })
  .refine((o) => o.source !== 'minutes' || o.bucket % 60_000 === 0, { error: "must be a whole number of minutes (60000, 120000, ...) with source 'minutes'", path: ['bucket'] });

/** registerMetrics(registry): what it needs of a prom-client Registry (any prom-client 14 or 15). */
export const metricsRegistry = z.custom<{ registerMetric(metric: unknown): void }>((v) => typeof (v as { registerMetric?: unknown } | null | undefined)?.registerMetric === 'function', {
  error: 'expected a prom-client Registry',
});

/** registerMetrics(registry, options): which queues to report, and the metric names' prefix. */
export const metricsOptions = z.strictObject(
  {
    queues: z.array(queueName, { error: 'expected an array of queue names' }).optional(),
    prefix: z
      .string({ error: 'expected a Prometheus metric name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*)' })
      .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, { error: 'expected a Prometheus metric name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*)' })
      .default('docket_'),
  },
  { error: 'expected { queues?, prefix? }' },
);
