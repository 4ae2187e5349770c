/**
 * One task looked up by its hash: the task as get() has it while it is in its queue (with the
 * tasks it was put after, as dependencies() has them, and its newest log lines), else the outcome it kept once it finished
 * (put option keepResult; result() reads it). Payloads, progress, results and errors are other
 * people's values of up to 64 KiB or more: the view carries them clipped to 2,000 characters, as
 * the lists carry a last error, and the page escapes them.
 */
import type { Dependency } from '../../features/deps';
import { ENCRYPTED } from '../../domain/crypto';
import { MAX_ERROR_CHARS } from '../../domain/domain';
import type { LogLine, TaskInfo } from '../../types/task';
import type { TaskOutcome } from '../../types/outcome';
import type { Scheduler } from '../../types/scheduler';
import { percentOf, scheduleOf, type TaskView } from './api';
import { clip } from './html';

/** How much of a payload, progress or result a looked-up task shows (its errors: MAX_ERROR_CHARS). */
const SHOWN_VALUE_CHARS = 2000;
/** How many of the tasks it was put after a looked-up task lists (up to 10,000 may be named). */
export const MAX_DEPENDENCIES = 100;
/** How many of its newest log lines a looked-up task shows, and how much of each. */
export const MAX_LOG_LINES = 50;
export const MAX_LOG_CHARS = 500;

/** A task that a looked-up task was put after, and where it is now. */
export interface DependencyView {
  queue: string;
  hash: string;
  /**
   * What result() says of it: `pending` or `active` while it lives, how it finished while its
   * outcome is kept, else `gone` (no record and no kept outcome: a waiting task counts it as done).
   */
  state: TaskOutcome['state'] | 'gone';
}

/** A task in its queue, looked up: a TaskView whose texts are cut at 2,000 characters, not 120. */
export interface TaskDetail extends TaskView {
  /** The de-dup key given to put, if any. */
  key: string | null;
  /** How long its outcome is kept once it finishes (ms), else null. */
  keepResult: number | null;
  /** The first 100 tasks it was put after (`after`), in put order; empty for a task put without. */
  dependencies: DependencyView[];
  /**
   * How many tasks it was put after in all, or null for more than 100 (a refresh reads the
   * outcomes of those it shows, not of all 10,000 a task may name).
   */
  dependencyCount: number | null;
  /** Its newest 50 log lines (task.log), oldest first, each cut at 500 characters; empty for none. */
  logs: LogLine[];
  /** How many log lines it has in all (the cap is logMaxLines). */
  logCount: number;
}

/** A finished task's kept outcome. */
export interface OutcomeView {
  hash: string;
  queue: string;
  state: Exclude<TaskOutcome['state'], 'pending' | 'active'>;
  /** The deliveries it took. */
  attempts: number;
  /** When it finished: epoch ms on the Redis clock. */
  finishedAt: number;
  /** A done task's result as JSON (`null` when its handler returned nothing), cut to 2,000 characters; else null. */
  result: string | null;
  /** A dead task's last error, cut to 2,000 characters; else null. */
  error: string | null;
  /** The task it was merged into (a failed until-start task whose identity had a task waiting); else null. */
  into: string | null;
}

/**
 * The JSON of `GET <base>/api/task?queue=&hash=`: one of `task` and `outcome` is set (the API
 * answers 404 when neither is); the overview's `lookup` has both null for a hash nobody knows.
 */
export interface Lookup {
  /** The Redis server's clock (epoch ms) when read. */
  now: number;
  queue: string;
  hash: string;
  task: TaskDetail | null;
  outcome: OutcomeView | null;
}

/** Reads task `hash` of `queue`: the task itself, or failing that its kept outcome. */
export async function lookup(scheduler: Scheduler, queue: string, hash: string): Promise<Lookup> {
  const [task, now, deps, logs] = await Promise.all([
    scheduler.get(hash, { queue }),
    scheduler.time(),
    scheduler.dependencies(hash, { queue, limit: MAX_DEPENDENCIES + 1 }),
    scheduler.logs(hash, { queue }),
  ]);
  if (task !== null) return { now, queue, hash, task: toDetail(task, deps, logs), outcome: null };
  const outcome = await scheduler.result(hash, { queue });
  // A live answer here is a task put again between the two reads: the next look finds it.
  return { now, queue, hash, task: null, outcome: outcome === null ? null : toOutcomeView(outcome) };
}

/** `value` as JSON, cut; JSON.stringify of a JSON value never fails. */
function jsonText(value: unknown): string {
  return clip(JSON.stringify(value) ?? 'null', SHOWN_VALUE_CHARS);
}

function toDetail(task: TaskInfo, deps: Dependency[], logs: LogLine[]): TaskDetail {
  // Encrypted with a key this dashboard was not given (options.encryption): said so, not null.
  const data = task.encrypted && task.data === null ? ENCRYPTED : (JSON.stringify(task.data) ?? 'null');
  return {
    hash: task.hash,
    state: task.state,
    preview: clip(data, SHOWN_VALUE_CHARS),
    bytes: Buffer.byteLength(data),
    progressPreview: task.progress === null ? null : jsonText(task.progress),
    percent: percentOf(task.progress),
    runAt: task.runAt,
    expireAt: task.expireAt,
    attempts: task.attempts,
    maxAttempts: task.maxAttempts,
    level: task.level,
    group: task.group,
    lastError: task.lastError === null ? null : clip(task.lastError, MAX_ERROR_CHARS),
    leaseUntil: task.leaseUntil,
    worker: task.worker,
    diedAt: null,
    // The lists count what a waiting task still waits on; here each dependency says so itself.
    waitingOn: null,
    name: task.name,
    schedule: scheduleOf(task),
    key: task.key,
    keepResult: task.keepResult,
    dependencies: deps.slice(0, MAX_DEPENDENCIES).map((d) => ({ queue: d.queue, hash: d.hash, state: d.outcome?.state ?? 'gone' })),
    // One more than shown was read: more than the page shows, without reading them all.
    dependencyCount: deps.length > MAX_DEPENDENCIES ? null : deps.length,
    logs: logs.slice(-MAX_LOG_LINES).map(({ at, line }) => ({ at, line: clip(line, MAX_LOG_CHARS) })),
    logCount: logs.length,
  };
}

function toOutcomeView(o: TaskOutcome): OutcomeView | null {
  if (!('finishedAt' in o)) return null;
  const { hash, queue, state, attempts, finishedAt } = o;
  const result = o.state === 'done' ? (o.encrypted ? ENCRYPTED : jsonText(o.result)) : null;
  const error = o.state === 'dead' && o.error !== null ? clip(o.error, MAX_ERROR_CHARS) : null;
  const into = 'into' in o && typeof o.into === 'string' ? o.into : null;
  return { hash, queue, state, attempts, finishedAt, result, error, into };
}
