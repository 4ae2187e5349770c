/**
 * Prometheus metrics: gauges and counters in a real prom-client registry, with values read from
 * the real test Redis at scrape time; histograms of the claims and handlers of the scheduler that
 * registered them; and the refusal of a registry that has docket's names already.
 */
import { Gauge, Registry } from 'prom-client';
import { ValidationError } from '../lib';
import { MetricsRegisteredError } from '../lib/types/errors';
import { eventually, sleep, useRedis } from './support/harness';

const redis = useRedis();

/** The value of one series in the registry's text output. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('registerMetrics', () => {
  it('exports counts per queue and state, paused, and queue-wide totals from every process', async () => {
    const s = await redis.scheduler();
    const producer = await redis.scheduler({ prefix: s.prefix });
    await producer.putMany([
      { data: 1, options: { queue: 'mail' } },
      { data: 2, options: { queue: 'mail', maxAttempts: 1 } },
      { data: 3, options: { queue: 'mail', delay: 60_000 } },
    ]);
    await producer.put(1, { queue: 'mail' });
    const x = await producer.put('x', { queue: 'sms', name: 'text' });
    await producer.put('after x', { queue: 'sms', after: [x.hash] });
    const [a, b] = await producer.claimMany(2, { queue: 'mail' });
    await producer.ack(a);
    await producer.fail(b, { error: 'nope' });
    await producer.pause({ queue: 'sms' });

    const registry = new Registry();
    s.registerMetrics(registry);
    const text = await registry.metrics();
    expect(value(text, 'docket_tasks{queue="mail",state="delayed"}')).toBe(1);
    expect(value(text, 'docket_tasks{queue="mail",state="dead"}')).toBe(1);
    expect(value(text, 'docket_tasks{queue="mail",state="ready"}')).toBe(0);
    expect(value(text, 'docket_tasks{queue="sms",state="ready"}')).toBe(1);
    expect(value(text, 'docket_tasks{queue="sms",state="waiting"}')).toBe(1);
    expect(value(text, 'docket_tasks{queue="mail",state="waiting"}')).toBe(0);
    expect(value(text, 'docket_paused{queue="sms"}')).toBe(1);
    expect(value(text, 'docket_paused{queue="mail"}')).toBe(0);
    expect(value(text, 'docket_put_total{queue="mail"}')).toBe(4);
    expect(value(text, 'docket_added_total{queue="mail"}')).toBe(3);
    expect(value(text, 'docket_deduplicated_total{queue="mail"}')).toBe(1);
    expect(value(text, 'docket_completed_total{queue="mail"}')).toBe(1);
    expect(value(text, 'docket_failed_total{queue="mail"}')).toBe(1);
    expect(value(text, 'docket_dead_total{queue="mail"}')).toBe(1);
    expect(value(text, 'docket_expired_total{queue="mail"}')).toBe(0);
    expect(value(text, 'docket_lease_lost_total{queue="mail"}')).toBe(0);
    expect(text).toContain('# TYPE docket_completed_total counter');
    expect(text).toContain('# TYPE docket_tasks gauge');

    // A later scrape sees later work, done by another process.
    await producer.resume({ queue: 'sms' });
    await producer.ack((await producer.claim({ queue: 'sms' }))!);
    await new Promise((r) => setTimeout(r, 600));
    const later = await registry.metrics();
    expect(value(later, 'docket_completed_total{queue="sms"}')).toBe(1);
    expect(value(later, 'docket_outcomes_by_name_total{queue="sms",name="text",outcome="completed"}')).toBe(1);
    expect(value(later, 'docket_outcomes_by_name_total{queue="sms",name="text",outcome="dead"}')).toBe(0);
    // x done: the task put after it is ready now.
    expect(value(later, 'docket_tasks{queue="sms",state="ready"}')).toBe(1);
    expect(value(later, 'docket_tasks{queue="sms",state="waiting"}')).toBe(0);
  });

  it('reports only the queues given, under a prefix of choice, and refuses bad arguments', async () => {
    const s = await redis.scheduler();
    await s.put(1, { queue: 'a' });
    await s.put(2, { queue: 'b' });
    const registry = new Registry();
    s.registerMetrics(registry, { queues: ['b'], prefix: 'jobs_' });
    const text = await registry.metrics();
    expect(value(text, 'jobs_tasks{queue="b",state="ready"}')).toBe(1);
    expect(text).not.toContain('queue="a"');
    expect(() => s.registerMetrics({} as never)).toThrow(ValidationError);
    expect(() => s.registerMetrics(new Registry(), { prefix: 'bad-name' })).toThrow('options.prefix');
  });

  it('checks its options as every other call does: known names only, queue names as put checks them', async () => {
    const s = await redis.scheduler();
    expect(() => s.registerMetrics({} as never)).toThrow('registry: expected a prom-client Registry');
    expect(() => s.registerMetrics(new Registry(), null as never)).toThrow('options: expected { queues?, prefix? }');
    expect(() => s.registerMetrics(new Registry(), { prefx: 'a_' } as never)).toThrow('options.prefx: is not a known option');
    expect(() => s.registerMetrics(new Registry(), { queues: ['ok', 'a{b'] })).toThrow(/^options\.queues\[1\]: must have no braces/);
    expect(() => s.registerMetrics(new Registry(), { prefix: 5 } as never)).toThrow('options.prefix: expected a Prometheus metric name prefix');
  });
});

type Scheduler = Awaited<ReturnType<typeof redis.scheduler>>;

/** Runs `data` on `queue` with a worker whose handler takes `ms`, and waits until it is acked. */
async function runOne(s: Scheduler, queue: string, ms: number): Promise<void> {
  await s.put('job', { queue });
  const worker = s.work(async () => void (await sleep(ms)), { queue });
  await eventually(async () => (await s.stats({ queue })).totals.completed === 1);
  await worker.close();
}

describe('registerMetrics: histograms of this scheduler', () => {
  it('observes the queue lag of each claim in seconds, from the run-at on the Redis clock', async () => {
    const s = await redis.scheduler();
    const registry = new Registry();
    s.registerMetrics(registry);
    // Due 3 s before now: its lag at claim is at least that, whoever claims it.
    await s.put('late', { queue: 'lag', at: (await s.time()) - 3000 });
    await s.put('fresh', { queue: 'lag' });
    expect(await s.claimMany(2, { queue: 'lag' })).toHaveLength(2);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE docket_queue_lag_seconds histogram');
    expect(value(text, 'docket_queue_lag_seconds_count{queue="lag"}')).toBe(2);
    expect(value(text, 'docket_queue_lag_seconds_sum{queue="lag"}')).toBeGreaterThanOrEqual(3);
    // Seconds, not ms: the late one is past the 2.5 s bound, the fresh one is not.
    expect(value(text, 'docket_queue_lag_seconds_bucket{le="2.5",queue="lag"}')).toBe(1);
    expect(value(text, 'docket_queue_lag_seconds_bucket{le="+Inf",queue="lag"}')).toBe(2);
  });

  it("observes each handler's run time in seconds, and the lag of a work() loop's claims", async () => {
    const s = await redis.scheduler();
    const registry = new Registry();
    s.registerMetrics(registry);
    await runOne(s, 'slow', 300);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE docket_handler_duration_seconds histogram');
    expect(value(text, 'docket_handler_duration_seconds_count{queue="slow"}')).toBe(1);
    expect(value(text, 'docket_handler_duration_seconds_sum{queue="slow"}')).toBeGreaterThanOrEqual(0.29);
    expect(value(text, 'docket_handler_duration_seconds_bucket{le="0.25",queue="slow"}')).toBe(0);
    expect(value(text, 'docket_handler_duration_seconds_bucket{le="+Inf",queue="slow"}')).toBe(1);
    expect(value(text, 'docket_queue_lag_seconds_count{queue="slow"}')).toBe(1);
  });

  it("counts only its own scheduler's claims and handlers, and only the queues given", async () => {
    const s = await redis.scheduler();
    // Another scheduler in this process, on a queue of the same name under another prefix.
    const other = await redis.scheduler();
    const registry = new Registry();
    s.registerMetrics(registry, { queues: ['q'] });
    await runOne(other, 'q', 1);
    await runOne(s, 'elsewhere', 1);
    let text = await registry.metrics();
    expect(value(text, 'docket_handler_duration_seconds_count{queue="q"}')).toBeUndefined();
    expect(value(text, 'docket_queue_lag_seconds_count{queue="q"}')).toBeUndefined();
    expect(text).not.toContain('queue="elsewhere"');
    await runOne(s, 'q', 1);
    text = await registry.metrics();
    expect(value(text, 'docket_handler_duration_seconds_count{queue="q"}')).toBe(1);
    expect(value(text, 'docket_queue_lag_seconds_count{queue="q"}')).toBe(1);
  });
});

describe('registerMetrics: oldest due task', () => {
  it('gives the age in seconds of the oldest ready task, behind fresher ones of higher priority', async () => {
    const s = await redis.scheduler();
    const now = await s.time();
    await s.put('old', { queue: 'backlog', at: now - 60_000 });
    await s.put('urgent', { queue: 'backlog', priority: 9 });
    await s.put('later', { queue: 'future', delay: 600_000 });
    await s.put('idle', { queue: 'drained' });
    await s.ack((await s.claim({ queue: 'drained' }))!);
    const registry = new Registry();
    s.registerMetrics(registry);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE docket_oldest_ready_age_seconds gauge');
    const age = value(text, 'docket_oldest_ready_age_seconds{queue="backlog"}')!;
    expect(age).toBeGreaterThanOrEqual(60);
    expect(age).toBeLessThan(3600); // seconds, not ms
    // A task not due yet, and no task at all, are no wait.
    expect(value(text, 'docket_oldest_ready_age_seconds{queue="future"}')).toBe(0);
    expect(value(text, 'docket_oldest_ready_age_seconds{queue="drained"}')).toBe(0);
  });

  it('counts a delayed task past its run-at that no claim has moved to ready yet', async () => {
    const s = await redis.scheduler();
    await s.put('due soon', { queue: 'stalled', delay: 100 });
    await sleep(1200);
    // No worker claims: the task is due but still delayed.
    expect(await s.stats({ queue: 'stalled' })).toMatchObject({ ready: 0, delayed: 1 });
    const registry = new Registry();
    s.registerMetrics(registry);
    expect(value(await registry.metrics(), 'docket_oldest_ready_age_seconds{queue="stalled"}')).toBeGreaterThanOrEqual(1);
  });
});

describe('registerMetrics: once per registry', () => {
  it('refuses a second registration on the same registry with a MetricsRegisteredError that says what to do', async () => {
    const s = await redis.scheduler();
    await s.put(1, { queue: 'a' });
    const registry = new Registry();
    s.registerMetrics(registry);
    const before = await registry.metrics();
    let thrown: unknown;
    try {
      s.registerMetrics(registry);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(MetricsRegisteredError);
    expect(thrown).toBeInstanceOf(ValidationError);
    expect(thrown).toMatchObject({ name: 'MetricsRegisteredError', code: 'ERR_METRICS_REGISTERED', field: 'registry', metric: 'docket_tasks' });
    const message = (thrown as Error).message;
    expect(message).toMatch(/^registry: already has a metric named docket_tasks\. registerMetrics\(\) adds docket's metrics once per registry/);
    expect(message).toContain('options.prefix');
    expect(message).not.toContain('already been registered');
    expect(await registry.metrics()).toBe(before);
    // Another registry of the same scheduler is fine.
    expect(() => s.registerMetrics(new Registry())).not.toThrow();
  });

  it('refuses a second scheduler on the same registry, unless it has a prefix of its own', async () => {
    const s = await redis.scheduler();
    const other = await redis.scheduler();
    await s.put(1, { queue: 'a' });
    await other.put(2, { queue: 'b' });
    const registry = new Registry();
    s.registerMetrics(registry);
    expect(() => other.registerMetrics(registry)).toThrow(MetricsRegisteredError);
    other.registerMetrics(registry, { prefix: 'other_' });
    const text = await registry.metrics();
    expect(value(text, 'docket_tasks{queue="a",state="ready"}')).toBe(1);
    expect(value(text, 'other_tasks{queue="b",state="ready"}')).toBe(1);
    expect(text).not.toContain('docket_tasks{queue="b"');
  });

  it('adds nothing when one name is taken: checked first, or taken back from a registry that cannot be asked', async () => {
    const s = await redis.scheduler();
    const registry = new Registry();
    new Gauge({ name: 'docket_paused', help: 'mine', registers: [registry] });
    expect(() => s.registerMetrics(registry)).toThrow(expect.objectContaining({ code: 'ERR_METRICS_REGISTERED', metric: 'docket_paused' }));
    expect(registry.getMetricsAsArray().map((m) => m.name)).toEqual(['docket_paused']);

    // A registry without getSingleMetric: prom-client's refusal, wrapped, and what was added removed.
    const inner = new Registry();
    new Gauge({ name: 'x_queue_lag_seconds', help: 'mine', registers: [inner] });
    const blind = { registerMetric: (m: never) => inner.registerMetric(m), removeSingleMetric: (name: string) => inner.removeSingleMetric(name) };
    let thrown: unknown;
    try {
      s.registerMetrics(blind, { prefix: 'x_' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ code: 'ERR_METRICS_REGISTERED', metric: 'x_queue_lag_seconds' });
    expect((thrown as Error).cause).toBeInstanceOf(Error);
    expect(inner.getMetricsAsArray().map((m) => m.name)).toEqual(['x_queue_lag_seconds']);
  });
});
