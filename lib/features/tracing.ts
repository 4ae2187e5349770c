/**
 * Tracing hooks on node:diagnostics_channel. docket publishes each put, claim, ack and fail as a
 * TracingChannel (`docket:put`, `docket:claim`, `docket:ack`, `docket:fail`: lib/types/tracing.ts
 * declares them, as the package exports them): a subscriber gets
 * `start` before the call, `asyncEnd` with `result` (or `error`) after it, on one message object.
 * Nothing is published, and nothing costs, while no one subscribes. The OpenTelemetry adapter
 * (otel.ts) is one such subscriber; APM agents can be others.
 *
 * A put's message carries a `carrier` per task: what a subscriber writes there in `start` (a W3C
 * `traceparent`, say) is stored with the task, and comes back on the claimed Task as `trace`. That
 * is how a consumer's span links to its producer's across processes.
 */
import type { TracingChannel, TracingChannelSubscribers } from 'node:diagnostics_channel';
import type { Carrier } from '../types/task';

/** Runs `fn` as a traced call on `channel` when anyone listens, else just runs it. */
export function traced<M extends object, R>(channel: TracingChannel<M, M>, message: () => M, fn: () => Promise<R>): Promise<R> {
  if (!listened(channel)) return fn();
  return channel.tracePromise(fn, message());
}

/** Whether anyone listens (TracingChannel.hasSubscribers is missing before Node 20.13). */
export function listened(channel: TracingChannel<object, object>): boolean {
  return channel.start.hasSubscribers || channel.asyncEnd.hasSubscribers || channel.error.hasSubscribers || channel.end.hasSubscribers || channel.asyncStart.hasSubscribers;
}

/** A full subscriber set from the events one cares about (the others do nothing). */
export function subscribers<M extends object>(some: Partial<TracingChannelSubscribers<M>>): TracingChannelSubscribers<M> {
  const none = () => {};
  return { start: none, end: none, asyncStart: none, asyncEnd: none, error: none, ...some };
}

/**
 * A carrier as stored in the task's options string: URI-encoded JSON, so it holds no '|' (the
 * field separator), or '' for none.
 */
export function encodeCarrier(carrier: Carrier): string {
  return Object.keys(carrier).length === 0 ? '' : encodeURIComponent(JSON.stringify(carrier));
}

export function decodeCarrier(stored: string): Carrier | null {
  if (stored === '') return null;
  try {
    return JSON.parse(decodeURIComponent(stored)) as Carrier;
  } catch {
    return null; // a record written by something else: no trace, but the task still runs
  }
}
