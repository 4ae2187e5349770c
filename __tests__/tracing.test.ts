/**
 * Tracing: docket's calls on node:diagnostics_channel, and the OpenTelemetry adapter that links a
 * consumer's span to its producer's through the task record. A real SDK tracer and real Redis.
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { instrumentOpenTelemetry, type PutMessage } from '../lib';
import { eventually, useRedis } from './support/harness';

const redis = useRedis();

describe('diagnostics channels', () => {
  it('publishes put, claim, ack and fail with their results, and stores a carrier with the task', async () => {
    const s = await redis.scheduler();
    const seen: string[] = [];
    const on = (name: string) => ({
      start: (m: object) => seen.push(`${name}:start:${JSON.stringify({ ...m, result: undefined })}`),
      asyncEnd: () => seen.push(`${name}:end`),
    });
    const put = {
      start(m: PutMessage) {
        m.items.forEach((item, i) => (item.carrier.traceparent = `tp-${i}`));
      },
    };
    const handlers = Object.fromEntries(['put', 'claim', 'ack', 'fail'].map((n) => [n, on(n)]));
    for (const [name, h] of Object.entries(handlers)) diagnostics_channel.tracingChannel(`docket:${name}`).subscribe(h as never);
    diagnostics_channel.tracingChannel('docket:put').subscribe(put as never);
    try {
      await s.putMany([{ data: 'a' }, { data: 'b', options: { priority: 3 } }]);
      const [b, a] = await s.claimMany(2);
      expect([a.trace, b.trace]).toEqual([{ traceparent: 'tp-0' }, { traceparent: 'tp-1' }]);
      await s.ack(a);
      await s.fail(b, { error: 'x' });
      expect(seen).toEqual([
        'put:start:{"items":[{"queue":"default","carrier":{}},{"queue":"default","carrier":{}}]}',
        'put:end',
        'claim:start:{"queue":"default","count":2}',
        'claim:end',
        expect.stringMatching(/^ack:start:\{"queue":"default","tasks":\[\{"hash":/),
        'ack:end',
        expect.stringMatching(/^fail:start:\{"queue":"default","task":\{.*"failure":"x"\}$/),
        'fail:end',
      ]);
    } finally {
      for (const [name, h] of Object.entries(handlers)) diagnostics_channel.tracingChannel(`docket:${name}`).unsubscribe(h as never);
      diagnostics_channel.tracingChannel('docket:put').unsubscribe(put as never);
    }
    // Unsubscribed: a put stores no trace, and the claimed task has none.
    await s.put('c');
    expect((await s.claim())!.trace).toBeNull();
  });
});

describe('OpenTelemetry adapter', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let otel: ReturnType<typeof instrumentOpenTelemetry>;
  beforeAll(() => (otel = instrumentOpenTelemetry({ tracerProvider: provider })));
  afterAll(() => otel.disable());
  beforeEach(() => exporter.reset());

  it('links each consumer span to its producer span through the task record, across schedulers', async () => {
    const producer = await redis.scheduler();
    const consumer = await redis.scheduler({ prefix: producer.prefix });
    const { hash } = await producer.put({ to: 'ann' }, { queue: 'mail' });
    const worker = consumer.work(async () => {}, { queue: 'mail' });
    await eventually(() => exporter.getFinishedSpans().length === 2);
    await worker.close();
    const [send, process] = ['send mail', 'process mail'].map((name) => exporter.getFinishedSpans().find((sp) => sp.name === name)!);
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(send.attributes).toMatchObject({ 'messaging.system': 'docket', 'messaging.destination.name': 'mail', 'messaging.operation.type': 'send', 'messaging.message.id': hash });
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.attributes).toMatchObject({ 'messaging.operation.type': 'process', 'messaging.message.id': hash, 'docket.task.attempt': 1 });
    expect(process.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[send.spanContext().traceId, send.spanContext().spanId]]);
    expect(process.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('marks a failed attempt as an error with the exception and its outcome, and a batch put as one span', async () => {
    const s = await redis.scheduler();
    await s.putMany([{ data: 1, options: { maxAttempts: 1 } }, { data: 2 }]);
    const [one, two] = await s.claimMany(2);
    await s.fail(one, { error: new Error('smtp down') });
    await s.ack(two);
    const spans = exporter.getFinishedSpans();
    const sends = spans.filter((sp) => sp.name === 'send default');
    expect(sends).toHaveLength(1);
    expect(sends[0].attributes['messaging.batch.message_count']).toBe(2);
    const failed = spans.find((sp) => sp.name === 'process default' && sp.attributes['docket.task.outcome'] === 'dead')!;
    expect(failed.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'smtp down' });
    expect(failed.events.map((e) => e.name)).toEqual(['exception']);
    expect(spans.filter((sp) => sp.name === 'process default')).toHaveLength(2);
  });

  it('gives the consumer span as context for handler code', async () => {
    const s = await redis.scheduler();
    await s.put('x');
    const task = (await s.claim())!;
    const { trace } = await import('@opentelemetry/api');
    const active = trace.getSpan(otel.contextOf(task) as never);
    expect(active?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    await s.ack(task);
    expect(
      exporter
        .getFinishedSpans()
        .find((sp) => sp.name === 'process default')!
        .spanContext().spanId,
    ).toBe(active!.spanContext().spanId);
  });
});

describe('instrumentOpenTelemetry options', () => {
  it.each([
    ['a provider without getTracer', { tracerProvider: {} }, 'options.tracerProvider'],
    ['a misspelled option', { tracerProvdier: new BasicTracerProvider() }, 'options.tracerProvdier'],
    ['not an object', 'global', 'options'],
  ])('refuses %s with a ValidationError naming the field', (_case, options, field) => {
    expect(() => instrumentOpenTelemetry(options as never)).toThrow(expect.objectContaining({ name: 'ValidationError', code: 'ERR_VALIDATION', field }));
  });
});
