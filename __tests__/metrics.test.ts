/**
 * Prometheus metrics: gauges and counters in a real prom-client registry, with values read from
 * the real test Redis at scrape time.
 */
import { Registry } from 'prom-client';
import { ValidationError } from '../lib';
import { useRedis } from './support/harness';

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
