/**
 * Tracing as the package exports it: the diagnostics channels docket publishes on, and the
 * OpenTelemetry instrumentation that subscribes to them (lib/features/tracing.ts and otel.ts do
 * the work; their messages and options are lib/types/tracing.ts).
 */
import { instrumentOpenTelemetry as instrument } from '../../features/otel';
import { channels } from '../../features/tracing';
import type { OpenTelemetryInstrumentation, OpenTelemetryOptions } from '../../types/tracing';

/** Starts tracing docket's calls in this process with OpenTelemetry. */
export function instrumentOpenTelemetry(options: OpenTelemetryOptions = {}): OpenTelemetryInstrumentation {
  return instrument(options);
}

/**
 * The four TracingChannels of node:diagnostics_channel docket publishes on (exported as
 * `tracingChannels`): subscribe to trace docket's calls. Nothing is published while no one subscribes.
 */
export const tracingChannels = channels;
