/**
 * The dashboard's data and its writes, apart from HTTP: one overview read (every queue's counts,
 * and the chosen queue's limits, chart, timeline and lists: ready, waiting, active, dead), and the
 * actions its buttons post. Every action checks its input and that the task or queue exists
 * before it writes anything.
 */
import type { QueueStats } from '../../types/queues';
import type { PreviewListOptions, PreviewTask } from '../../types/lists';
import type { Throughput } from '../../types/events';
import { MAX_ERROR_CHARS } from '../../domain/domain';
import type { RateLimit } from '../../types/limits';
import type { Scheduler } from '../../types/scheduler';
import type { RedriveRefusal, Refusal, Refused } from '../../types/task-calls';
import type { TaskState } from '../../types/task';
import type { PutStatus } from '../../types/put';
import { clip } from './html';
import { HttpError } from './http';
import { readLimits, setConcurrency, setRate, type LimitsView } from './limits';
import { parseCancelBody, parseCleanBody, parseConcurrencyBody, parsePauseBody, parseQueueBody, parseRateBody, parseRescheduleBody, parseTaskBody } from './options';
import { SCHEDULE_ACTIONS, scheduleAction } from './schedule-actions';
import { TASK_ACTIONS, taskAction, type TaskActionResult } from './task-actions';

/** A task as the dashboard shows it: the payload only as a short preview, errors clipped. */
export interface TaskView {
  hash: string;
  state: TaskState;
  /** The start of the payload's JSON, cut to 120 characters; it ends in `…` when cut. */
  preview: string;
  /** The whole payload's size in bytes. */
  bytes: number;
  /** The start of its progress's JSON, cut to 120 characters (ends in `…` when cut); null when it reported none. */
  progressPreview: string | null;
  /** Its progress as a percentage, shown as a bar: a number from 0 to 100, or `{ percent }` of one; else null. */
  percent: number | null;
  runAt: number;
  expireAt: number | null;
  attempts: number;
  maxAttempts: number;
  level: number;
  group: string | null;
  /** The last error, cut to 2,000 characters. */
  lastError: string | null;
  leaseUntil: number | null;
  worker: string | null;
  diedAt: number | null;
  /** How many of the tasks it was put after it still waits on (the waiting list only), else null. */
  waitingOn: number | null;
  /** Its name (put's `name`), else null. */
  name: string | null;
  /** The schedule that put it (TaskInfo's `schedule`), else null. */
  schedule: string | null;
  /** A done task's (the history's): when it finished. Absent for the other states. */
  finishedAt?: number;
  /** A done task's result as JSON, cut to 120 characters; null when it gave none. */
  resultPreview?: string | null;
}

export interface TaskList {
  /** Tasks in this state in all; `tasks` holds the first `limit` in the state's order. */
  total: number;
  tasks: TaskView[];
}

export interface QueueView {
  name: string;
  stats: QueueStats;
}

/** The JSON of `GET <base>/api/overview`. */
export interface Overview {
  /** The Redis server's clock (epoch ms) when read; null when there is no queue to read. */
  now: number | null;
  /** Every registered queue with its counts, by name. */
  queues: QueueView[];
  /** The chosen queue (`?queue=`, else the first by name) in detail, or null when there are none. */
  selected: (QueueView & { limits: LimitsView; throughput: Throughput; span: ChartSpan; ready: TaskList; delayed: TaskList; waiting: TaskList; active: TaskList; dead: TaskList }) | null;
}

/** The throughput chart's spans: the last 10 minutes in 10 s bars (the events stream), or the last 24 hours in 1-minute bars (the per-minute counters). */
export const CHART_WINDOW_MS = 600_000;
export const CHART_BUCKET_MS = 10_000;
export const CHART_SPANS = { '10m': { window: CHART_WINDOW_MS, bucket: CHART_BUCKET_MS }, '24h': { window: 86_400_000, bucket: 60_000 } } as const;
export type ChartSpan = keyof typeof CHART_SPANS;
const MAX_PREVIEW_CHARS = 120;
/**
 * Payload bytes read per task: 120 characters of JSON take at most 480 bytes of UTF-8. A refresh
 * then reads about 40 × 512 bytes of payload, whatever the payloads weigh.
 */
export const PREVIEW_BYTES = 512;

/** A listed task as the page shows it: its payload's preview cut at 120 characters, its error at 2,000. */
export function toView(task: PreviewTask): TaskView {
  const whole = Buffer.byteLength(task.preview) >= task.bytes;
  return {
    hash: task.hash,
    state: task.state,
    preview: clip(task.preview, MAX_PREVIEW_CHARS, !whole || task.preview.length > MAX_PREVIEW_CHARS),
    bytes: task.bytes,
    progressPreview: progressOf(task),
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
    diedAt: task.diedAt,
    waitingOn: task.waitingOn,
    name: task.name,
    schedule: scheduleOf(task),
    ...(task.done === undefined ? {} : { finishedAt: task.done.finishedAt, resultPreview: task.done.result === null ? null : clip(JSON.stringify(task.done.result), MAX_PREVIEW_CHARS) }),
  };
}

/** A progress a bar can show: a number from 0 to 100, or an object whose `percent` is one. */
export function percentOf(progress: unknown): number | null {
  const value = typeof progress === 'object' && progress !== null && !Array.isArray(progress) ? (progress as { percent?: unknown }).percent : progress;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100 ? value : null;
}

/** The schedule that put a task (`schedule` of TaskInfo and the listed tasks), null when none or not known. */
export function scheduleOf(task: object): string | null {
  const value = (task as { schedule?: unknown }).schedule;
  return typeof value === 'string' ? value : null;
}

/**
 * The head of a task's progress, clipped like a payload's. list() parses the progress only when
 * it came whole: a head it could not parse was cut by the read (a progress of JSON `null` parses
 * to null too, and is whole).
 */
function progressOf(task: PreviewTask): string | null {
  const text = task.progressPreview;
  if (text === null) return null;
  const whole = task.progress !== null || text === 'null';
  return clip(text, MAX_PREVIEW_CHARS, !whole || text.length > MAX_PREVIEW_CHARS);
}

async function page(scheduler: Scheduler, state: TaskState, queue: string, limit: number): Promise<TaskList & { now: number }> {
  const options: PreviewListOptions = { queue, limit, preview: PREVIEW_BYTES };
  const p = await scheduler.list(state, options);
  return { now: p.now, total: p.total, tasks: p.tasks.map(toView) };
}

/** Reads everything the page shows, in parallel (node-redis pipelines the calls). */
export async function overview(scheduler: Scheduler, queue: string | undefined, limit: number, span: ChartSpan = '10m'): Promise<Overview> {
  const names = await scheduler.queues();
  const name = queue ?? names[0];
  // A queue asked for by name is shown even before its first put registers it.
  const all = name === undefined || names.includes(name) ? names : [...names, name].sort();
  const [queues, detail] = await Promise.all([
    Promise.all(all.map(async (n) => ({ name: n, stats: await scheduler.stats({ queue: n }) }))),
    name === undefined
      ? null
      : Promise.all([
          scheduler.throughput({ queue: name, ...CHART_SPANS[span] }),
          readLimits(scheduler, name),
          page(scheduler, 'ready', name, limit),
          page(scheduler, 'delayed', name, limit),
          page(scheduler, 'waiting', name, limit),
          page(scheduler, 'active', name, limit),
          page(scheduler, 'dead', name, limit),
        ]),
  ]);
  if (name === undefined || detail === null) return { now: null, queues, selected: null };
  const [throughput, limits, ready, { now, ...delayed }, waiting, active, dead] = detail;
  const stats = queues.find((q) => q.name === name)!.stats;
  const list = (l: TaskList & { now: number }): TaskList => ({ total: l.total, tasks: l.tasks });
  return { now, queues, selected: { name, stats, limits, throughput, span, ready: list(ready), delayed, waiting: list(waiting), active: list(active), dead: list(dead) } };
}

/** What each write answers, beside `ok: true`. */
export type ActionResult = ({ ok: true; queue: string } & (QueueResult | { hash: string; runAt?: number } | { hash: string; status: PutStatus })) | TaskActionResult;

/** What an action on a whole queue answers. */
type QueueResult = { changed: boolean } | { purged: number } | { redriven: number } | { deleted: number } | { limit: number | null } | { rate: RateLimit | null };

export const ACTIONS = [
  'pause',
  'resume',
  'purge-dead',
  'redrive-all',
  'clean',
  'redrive',
  'cancel',
  'reschedule',
  'limit-concurrency',
  'limit-rate',
  'run-again',
  ...SCHEDULE_ACTIONS,
  ...TASK_ACTIONS,
] as const;
export type Action = (typeof ACTIONS)[number];

/** Runs one action; a bad body is a ValidationError, a missing queue or task an HttpError 404. */
export async function act(scheduler: Scheduler, action: Action, body: unknown): Promise<ActionResult> {
  switch (action) {
    case 'pause':
    case 'resume':
      // With a group (the Groups tab), only that group's tasks stop or go again.
      return queueAction(scheduler, parsePauseBody(body), async ({ queue, group }) => ({ changed: await scheduler[action](group === undefined ? { queue } : { queue, group }) }));
    case 'purge-dead':
      return queueAction(scheduler, parseQueueBody(body), async ({ queue }) => ({ purged: await scheduler.purgeDead({ queue }) }));
    case 'redrive-all':
      // Every dead task of the queue back to ready, attempts reset: `docket redrive --all`.
      return queueAction(scheduler, parseQueueBody(body), async ({ queue }) => ({ redriven: await scheduler.redriveAll({ queue }) }));
    case 'clean':
      return queueAction(scheduler, parseCleanBody(body), async ({ queue, state, olderThan }) => ({ deleted: await scheduler.clean({ queue, state, olderThan }) }));
    case 'limit-concurrency':
      return queueAction(scheduler, parseConcurrencyBody(body), ({ queue, limit }) => setConcurrency(scheduler, queue, limit));
    case 'limit-rate':
      return queueAction(scheduler, parseRateBody(body), ({ queue, max, per }) => setRate(scheduler, queue, max, per));
    case 'redrive':
      return redrive(scheduler, body);
    case 'cancel':
      return cancel(scheduler, body);
    case 'reschedule':
      return reschedule(scheduler, body);
    case 'run-again':
      return runAgain(scheduler, body);
    case 'run-schedule':
    case 'pause-schedule':
    case 'resume-schedule':
      return scheduleAction(scheduler, action, body);
    case 'priority':
    case 'run-now':
    case 'add':
      return taskAction(scheduler, action, body);
  }
}

/** Puts a done task's data and options again (scheduler.runAgain): `status` says what de-dup made of it. */
async function runAgain(scheduler: Scheduler, body: unknown): Promise<ActionResult> {
  const { queue, hash } = parseTaskBody(body);
  const put = await scheduler.runAgain(hash, { queue });
  if (put === null) throw new HttpError(404, 'ERR_NOT_FOUND', `no done task ${hash} in queue ${queue}`, 'hash');
  return { ok: true, queue, hash: put.hash, status: put.status };
}

/** Runs `run` on a parsed body whose queue is registered. */
async function queueAction<B extends { queue: string }>(scheduler: Scheduler, body: B, run: (body: B) => Promise<QueueResult>): Promise<ActionResult> {
  const { queue } = body;
  // Only registered queues: a mistyped name must not leave a paused flag or a limit behind.
  if (!(await scheduler.queues()).includes(queue)) throw new HttpError(404, 'ERR_NOT_FOUND', `no queue named ${queue}`, 'queue');
  return { ok: true, queue, ...(await run(body)) };
}

function conflict(hash: string, why: string): HttpError {
  return new HttpError(409, 'ERR_CONFLICT', `task ${hash} ${why}`, 'hash');
}

async function redrive(scheduler: Scheduler, body: unknown): Promise<ActionResult> {
  const { queue, hash } = parseTaskBody(body);
  const change = await scheduler.redrive(hash, { queue, explain: true });
  if (!change.done) throw refused(queue, hash, change);
  return { ok: true, queue, hash };
}

/**
 * A refused re-drive, cancel or reschedule, as the script itself said why (in the same step as
 * the change, so no read after it can have moved on): a 404 for a missing task, else a 409.
 */
function refused(queue: string, hash: string, { reason, worker }: Refused<Refusal | RedriveRefusal>): HttpError {
  if (reason === 'missing') return new HttpError(404, 'ERR_NOT_FOUND', `no task ${hash} in queue ${queue}`, 'hash');
  if (reason === 'active') return conflict(hash, `is active: its worker${worker === undefined ? '' : ` (${worker})`} holds the lease`);
  if (reason === 'pending') return conflict(hash, 'is pending (delayed, ready or waiting), not dead');
  return conflict(hash, 'is dead: re-drive it first');
}

async function cancel(scheduler: Scheduler, body: unknown): Promise<ActionResult> {
  // `running` (an active task's form): its worker aborts its handler at its next heartbeat.
  const { queue, hash, running } = parseCancelBody(body);
  const change = await scheduler.cancel(hash, { queue, explain: true, running: running !== undefined });
  if (!change.done) throw refused(queue, hash, change);
  return { ok: true, queue, hash };
}

/**
 * Moves a pending task's run-at. A dead task is re-driven first, then moved: the scheduler has no
 * single call for both, so a worker may claim it in between (then this answers 409, and the task
 * runs now rather than at the time asked for).
 */
async function reschedule(scheduler: Scheduler, body: unknown): Promise<ActionResult> {
  const { queue, hash, at, delay } = parseRescheduleBody(body);
  // A delay counts from the Redis clock, which every run-at is on, not from this process's clock.
  const runAt = at ?? (await scheduler.time()) + (delay ?? 0);
  let change = await scheduler.reschedule(hash, runAt, { queue, explain: true });
  if (!change.done && change.reason === 'dead') {
    const redriven = await scheduler.redrive(hash, { queue, explain: true });
    if (!redriven.done) throw refused(queue, hash, redriven);
    change = await scheduler.reschedule(hash, runAt, { queue, explain: true });
  }
  if (!change.done) throw refused(queue, hash, change);
  return { ok: true, queue, hash, runAt };
}
