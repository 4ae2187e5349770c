/**
 * The OpenTelemetry instrumentation as the package exports it: it subscribes to the channels docket
 * publishes on (`tracingChannels`, lib/types/tracing.ts, with their messages); lib/features/otel.ts
 * does the work.
 */
import { instrumentOpenTelemetry as instrument } from '../../features/otel';
import type { OpenTelemetryInstrumentation, OpenTelemetryOptions } from '../../types/tracing';

/** Starts tracing docket's calls in this process with OpenTelemetry. */
export function instrumentOpenTelemetry(options: OpenTelemetryOptions = {}): OpenTelemetryInstrumentation {
  return instrument(options);
}
