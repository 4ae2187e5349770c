/**
 * The OpenTelemetry adapter: subscribes to docket's tracing channels (tracing.ts) and turns them
 * into spans that follow the messaging semantic conventions. A put is a PRODUCER span
 * `send <queue>`; each claimed task gets a CONSUMER span `process <queue>`, ended by its ack or
 * fail, and linked to the producer's span through the trace context stored in the task record.
 * Links, not parenthood: a task may run hours after its put, in another service (as the
 * conventions advise for queues).
 *
 * The trace context is written and read in W3C Trace Context form by docket itself, so the link
 * holds whatever propagator the application registered. `@opentelemetry/api` is an optional peer
 * dependency, loaded only when this adapter is used.
 */
import type * as Otel from '@opentelemetry/api';
import { MissingPeerError } from '../types/errors';
import { thrownText } from '../domain/log';
import { openTelemetryOptions, parse } from '../domain/options';
import type { Carrier } from '../types/task';
import { subscribers } from './tracing';
import { tracingChannels as channels } from '../types/tracing';
import type { AckMessage, ClaimMessage, FailMessage, OpenTelemetryInstrumentation, OpenTelemetryOptions, PutMessage } from '../types/tracing';

const SYSTEM = 'docket';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Starts tracing docket's calls in this process with OpenTelemetry. */
export function instrumentOpenTelemetry(options: OpenTelemetryOptions = {}): OpenTelemetryInstrumentation {
  const { tracerProvider } = parse(openTelemetryOptions, options, 'options');
  const api = loadApi();
  const provider = (tracerProvider ?? api.trace.getTracerProvider()) as Otel.TracerProvider;
  const tracer = provider.getTracer('docket');
  const spans = new WeakMap<object, Otel.Span>();
  const attributes = (queue: string, operation: string): Otel.Attributes => ({
    'messaging.system': SYSTEM,
    'messaging.destination.name': queue,
    'messaging.operation.type': operation,
    'messaging.operation.name': operation,
  });
  const fail = (span: Otel.Span | undefined, error: unknown) => {
    if (!span) return;
    try {
      if (error instanceof Error) {
        span.recordException(error);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: String(error.message) });
        return;
      }
    } catch {
      // Unreadable (a Proxy whose traps throw, a getter that throws): its text, which never throws.
    }
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: thrownText(error) });
  };

  const put = subscribers<PutMessage>({
    start(m: PutMessage) {
      const queue = m.items[0]?.queue ?? '';
      const span = tracer.startSpan(`send ${queue}`, { kind: api.SpanKind.PRODUCER, attributes: attributes(queue, 'send') });
      if (m.items.length > 1) span.setAttribute('messaging.batch.message_count', m.items.length);
      spans.set(m, span);
      for (const item of m.items) inject(span.spanContext(), item.carrier);
    },
    error: (m: PutMessage) => fail(spans.get(m), m.error),
    asyncEnd(m: PutMessage) {
      const span = spans.get(m);
      if (m.result?.length === 1) span?.setAttribute('messaging.message.id', m.result[0].hash);
      span?.end();
    },
  });
  const claim = subscribers<ClaimMessage>({
    asyncEnd(m: ClaimMessage) {
      for (const task of m.result?.tasks ?? []) {
        const producer = extract(task.trace);
        const span = tracer.startSpan(`process ${m.queue}`, {
          kind: api.SpanKind.CONSUMER,
          attributes: { ...attributes(m.queue, 'process'), 'messaging.message.id': task.hash, 'docket.task.attempt': task.attempt },
          links: producer ? [{ context: producer }] : [],
        });
        spans.set(task, span);
      }
    },
  });
  const ack = subscribers<AckMessage>({
    error: (m: AckMessage) => m.tasks.forEach((task) => fail(spans.get(task), m.error)),
    asyncEnd(m: AckMessage) {
      m.tasks.forEach((task, i) => {
        const span = spans.get(task);
        if (m.result && !m.result[i]) fail(span, 'lease lost before the ack');
        span?.end();
        spans.delete(task);
      });
    },
  });
  const failed = subscribers<FailMessage>({
    error: (m: FailMessage) => fail(spans.get(m.task), m.error),
    asyncEnd(m: FailMessage) {
      const span = spans.get(m.task);
      fail(span, m.failure);
      if (m.result) span?.setAttribute('docket.task.outcome', m.result);
      span?.end();
      spans.delete(m.task);
    },
  });
  channels.put.subscribe(put);
  channels.claim.subscribe(claim);
  channels.ack.subscribe(ack);
  channels.fail.subscribe(failed);

  return {
    contextOf(task) {
      const span = spans.get(task);
      return span ? api.trace.setSpan(api.context.active(), span) : api.context.active();
    },
    disable() {
      channels.put.unsubscribe(put);
      channels.claim.unsubscribe(claim);
      channels.ack.unsubscribe(ack);
      channels.fail.unsubscribe(failed);
    },
  };

  /** W3C Trace Context, written by hand: the link must not depend on a registered propagator. */
  function inject(context: Otel.SpanContext, carrier: Carrier): void {
    if (!api.isSpanContextValid(context)) return;
    carrier.traceparent = `00-${context.traceId}-${context.spanId}-${context.traceFlags.toString(16).padStart(2, '0')}`;
    const state = context.traceState?.serialize();
    if (state) carrier.tracestate = state;
  }

  function extract(carrier: Carrier | null): Otel.SpanContext | null {
    const match = carrier?.traceparent ? TRACEPARENT.exec(carrier.traceparent) : null;
    if (!match) return null;
    const context: Otel.SpanContext = { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16), isRemote: true };
    if (carrier?.tracestate) context.traceState = api.createTraceState(carrier.tracestate);
    return api.isSpanContextValid(context) ? context : null;
  }
}

/** @opentelemetry/api keeps one global registry per process, whichever copy loads it. */
function loadApi(): typeof Otel {
  try {
    return require('@opentelemetry/api') as typeof Otel;
  } catch (err) {
    throw new MissingPeerError('@opentelemetry/api', 'instrumentOpenTelemetry()', err);
  }
}
