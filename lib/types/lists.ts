/**
 * Pages of a queue's tasks, as list() returns them: with their data, or with a preview of it.
 */
import type { Json } from './json';
import type { TaskInfo } from './task';

/** Options of {@link Scheduler.list}. */
export interface ListOptions {
  /** The queue to list. Default: the scheduler's `queue` option. */
  queue?: string;
  /** Most tasks to return, a whole number from 1 to 1000. Default: 100. */
  limit?: number;
  /**
   * How many to skip, in the state's order (listDead(): the most recent deaths), for paging: a
   * whole number, 0 or more. Default: 0.
   */
  offset?: number;
}

/** ListOptions asking for previews: each task's first `preview` bytes of payload, not its data. */
export interface PreviewListOptions extends ListOptions {
  /**
   * Most payload bytes to read per task, 1 to 65,536. The tasks then carry `preview` and `bytes`
   * instead of `data`, so a page of large payloads stays small (what a dashboard shows). Without it
   * (ListOptions), the tasks carry their whole payloads.
   */
  preview: number;
}

/**
 * A listed task: what get() reports, when it died (dead tasks only, else null), and how many of
 * the tasks it was put after it still waits on (waiting tasks only, else null).
 */
export type ListedTask<T = Json> = TaskInfo<T> & {
  /** When it died, epoch ms on the Redis clock: dead tasks only, else null. */
  diedAt: number | null;
  /** How many of the tasks it was put after it still waits on: waiting tasks only, else null. */
  waitingOn: number | null;
};

/** A listed task read with `preview`: everything but `data`, and the start of the payload instead. */
export type PreviewTask = Omit<ListedTask, 'data'> & {
  /**
   * The first bytes of the payload's canonical JSON, cut back to the last whole UTF-8 character.
   * When cut, it is not valid JSON: show it, do not parse it.
   */
  preview: string;
  /** The whole payload's size in bytes (UTF-8); more than `preview` holds when it was cut. */
  bytes: number;
  /** The first bytes of its progress's JSON, as `preview` is cut (`progress` is that JSON when whole), else null. */
  progressPreview: string | null;
};

/** A page of tasks in one state, with the server's time to judge run-ats and leases by. */
interface Page<Item> {
  /** The Redis server's clock (epoch ms) when the page was read. */
  now: number;
  /** Tasks in this state in all (not only on this page). */
  total: number;
  tasks: Item[];
}

/** A page of tasks with their data. */
export type TaskPage<T = Json> = Page<ListedTask<T>>;

/** A page of tasks with previews of their payloads (list() with `preview`). */
export type PreviewPage = Page<PreviewTask>;
