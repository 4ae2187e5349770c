/** The libraries the benchmark compares, each loaded only in the child process that runs it. */
import type { OpenAdapter } from './adapters/adapter';

export const LIBRARIES: Record<string, () => OpenAdapter> = {
  docket: () => require('./adapters/docket').open,
  bullmq: () => require('./adapters/bullmq').open,
  'bee-queue': () => require('./adapters/bee-queue').open,
};
