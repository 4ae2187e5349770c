/**
 * The messages between the orchestrator (run.ts) and a benchmark child (child.ts) over Node's IPC
 * channel. The child asks for a mark at the start and end of its timed part; the parent answers
 * after taking its INFO snapshot, so the snapshots never fall inside a timing.
 */
import type { Sizes } from './scenarios';

export interface RunRequest {
  type: 'run';
  library: string;
  scenario: string;
  url: string;
  sizes: Sizes;
}

/** What a scenario measured: a rate (tasks/s), latency percentiles (ms), or bytes per task. */
export interface Measure {
  rate?: number;
  p50?: number;
  p99?: number;
  max?: number;
  bytes?: number;
  /** Tasks the timed part handled, for the cost per task. */
  tasks: number;
  /** Distinct tasks stored (the dedup check). */
  distinct?: number;
  /** Something worth a footnote, such as tasks that never ran. */
  note?: string;
}

export type ChildMessage = { type: 'mark'; at: 'start' | 'end' } | { type: 'result'; measure: Measure } | { type: 'error'; message: string };

export type ParentMessage = RunRequest | { type: 'marked'; usedMemory: number };
