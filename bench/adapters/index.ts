/**
 * The libraries the benchmark compares, in table order. Each is required only inside the child
 * process that runs it, so no process ever loads two libraries.
 */
import type { OpenAdapter } from './adapter';

export const LIBRARIES: Record<string, () => OpenAdapter> = {
  docket: () => require('./docket').open,
  bullmq: () => require('./bullmq').open,
  'bee-queue': () => require('./bee-queue').open,
  minimal: () => require('./minimal').open,
};

/** The column titles of the results table. */
export const TITLES: Record<string, string> = { docket: 'docket', bullmq: 'BullMQ', 'bee-queue': 'bee-queue', minimal: 'minimal' };

/** The peers docket is measured against; `minimal` is a floor reference, not a peer. */
export const PEERS = ['bullmq', 'bee-queue'];
