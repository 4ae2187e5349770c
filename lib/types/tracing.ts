/**
 * Tracing: the diagnostics channels docket publishes on (`tracingChannels`, which the package
 * exports; lib/features/tracing.ts publishes on them) and their messages, and
 * instrumentOpenTelemetry()'s options and handle (lib/features/otel.ts).
 */
import diagnostics_channel from 'node:diagnostics_channel';
import type { PutResult } from './put';
import type { Carrier, Task } from './task';

/** The message of the `docket:put` channel: one put() or putMany() call. */
export interface PutMessage {
  /** One entry per task of this put() or putMany() call, in call order. */
  items: Array<{
    /** The queue the task goes to. */
    queue: string;
    /** Written by a subscriber in `start` (a W3C `traceparent`, say): stored with the task, and back on its claimed Task as `trace`. */
    carrier: Carrier;
  }>;
  /** Set at `asyncEnd`: one {@link PutResult} per item. */
  result?: PutResult[];
  /** Set at `asyncEnd` when the call rejected: what it rejected with. */
  error?: unknown;
}

/** The message of the `docket:claim` channel: one claim call (claim(), claimMany(), or a worker's). */
export interface ClaimMessage {
  /** The queue claimed from. */
  queue: string;
  /** Most tasks asked for. */
  count: number;
  /** What the call returned: the leased tasks, among other things. */
  result?: {
    /** The tasks leased, possibly none. */
    tasks: Task<unknown>[];
  };
  /** Set at `asyncEnd` when the call rejected: what it rejected with. */
  error?: unknown;
}

/** The message of the `docket:ack` channel: one ack call, of one task or several acked together. */
export interface AckMessage {
  /** The queue of the tasks. */
  queue: string;
  /** The tasks acked. */
  tasks: Task<unknown>[];
  /** Per task: whether the ack was taken (false: the lease was lost). */
  result?: boolean[];
  /** Set at `asyncEnd` when the call rejected: what it rejected with. */
  error?: unknown;
}

/** The message of the `docket:fail` channel: one failed attempt. */
export interface FailMessage {
  /** The queue of the task. */
  queue: string;
  /** The task whose attempt failed. */
  task: Task<unknown>;
  /** What the attempt failed with: the `error` given to fail. */
  failure: unknown;
  /** Set at `asyncEnd`: what {@link Scheduler.fail} resolved to. */
  result?: 'retry' | 'dead' | 'merged' | 'lost';
  /** Set at `asyncEnd` when the call rejected: what it rejected with. */
  error?: unknown;
}

/** Options of {@link instrumentOpenTelemetry}. */
export interface OpenTelemetryOptions {
  /** Where the tracer comes from. Default: the global tracer provider of @opentelemetry/api. */
  tracerProvider?: {
    /** Returns the tracer of that name and version, as an OpenTelemetry `TracerProvider` does. */
    getTracer(name: string, version?: string): unknown;
  };
}

/** What {@link instrumentOpenTelemetry} returns: the context of a task's span, and a way to stop. */
export interface OpenTelemetryInstrumentation {
  /**
   * The context with a task's consumer span active: run handler code in it
   * (`context.with(otel.contextOf(task), ...)`) so its own spans become the span's children.
   */
  contextOf(task: Task<unknown>): unknown;
  /** Stops making spans. */
  disable(): void;
}

/**
 * The four TracingChannels of node:diagnostics_channel docket publishes on: subscribe to trace
 * docket's calls. Nothing is published while no one subscribes.
 */
export const tracingChannels = {
  /** `docket:put`: each put() and putMany() call. */
  put: diagnostics_channel.tracingChannel<PutMessage, PutMessage>('docket:put'),
  /** `docket:claim`: each claim call. */
  claim: diagnostics_channel.tracingChannel<ClaimMessage, ClaimMessage>('docket:claim'),
  /** `docket:ack`: each ack call. */
  ack: diagnostics_channel.tracingChannel<AckMessage, AckMessage>('docket:ack'),
  /** `docket:fail`: each failed attempt. */
  fail: diagnostics_channel.tracingChannel<FailMessage, FailMessage>('docket:fail'),
};
