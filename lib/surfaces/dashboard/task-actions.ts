/**
 * The task actions a person does every day, one click each: change a pending task's priority
 * (`POST /api/priority` with `{ queue, hash, priority }`), run a delayed task now (`/api/run-now`:
 * its run-at moved to the Redis clock's now), and add a task (`/api/add`: queue, name, JSON data,
 * delay, priority, group, most attempts), which is also how a task is duplicated (the add page
 * pre-filled from it). Apart from api.ts, which dispatches every action, to keep it small.
 */
import { z } from 'zod';
import { ValidationError } from '../../types/errors';
import { queueName } from '../../domain/options';
import type { Json } from '../../types/json';
import type { PutStatus } from '../../types/put';
import type { Scheduler } from '../../types/scheduler';
import { HttpError } from './http';
import { parseTaskBody } from './options';

/** What a task action answers: an ActionResult of api.ts. */
export type TaskActionResult = { ok: true; queue: string; hash: string } & ({ level: number } | { runAt: number } | { status: PutStatus; added: boolean; runAt: number });

export const TASK_ACTIONS = ['priority', 'run-now', 'add'] as const;
export type TaskAction = (typeof TASK_ACTIONS)[number];

/** Most bytes of JSON the add form takes: the dashboard reads at most 16 KiB of body. */
export const MAX_DATA_CHARS = 12_000;

/** Form fields arrive as strings, JSON bodies as numbers: a string of digits counts as a number; '' as none. */
const digits = (v: unknown) => (typeof v === 'string' ? (v.trim() === '' ? undefined : /^\d+$/.test(v.trim()) ? Number(v) : v) : v);
const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const PRIORITY_HINT = 'expected a whole number from 0 (normal) to 9';
const level = z.preprocess(digits, z.number({ error: PRIORITY_HINT }).int({ error: PRIORITY_HINT }).min(0, { error: PRIORITY_HINT }).max(9, { error: PRIORITY_HINT }));
const DELAY_HINT = 'expected whole milliseconds from 0 to 31536000000 (a year)';
const ATTEMPTS_HINT = 'expected a whole number from 1 to 1000';

const addBody = z.strictObject(
  {
    queue: queueName,
    csrf: z.string().optional(),
    name: z.preprocess(blank, z.string({ error: 'expected a string' }).optional()),
    data: z.string({ error: 'required: the task data as JSON' }).max(MAX_DATA_CHARS, { error: `must be at most ${MAX_DATA_CHARS} characters` }),
    delay: z.preprocess(digits, z.number({ error: DELAY_HINT }).int({ error: DELAY_HINT }).min(0, { error: DELAY_HINT }).max(31_536_000_000, { error: DELAY_HINT }).optional()),
    priority: level.optional(),
    group: z.preprocess(blank, z.string({ error: 'expected a string' }).optional()),
    maxAttempts: z.preprocess(digits, z.number({ error: ATTEMPTS_HINT }).int({ error: ATTEMPTS_HINT }).min(1, { error: ATTEMPTS_HINT }).max(1000, { error: ATTEMPTS_HINT }).optional()),
  },
  { error: 'expected an object of fields' },
);

function fields<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue.code === 'unrecognized_keys') throw new ValidationError(issue.keys[0], 'is not a known field');
  throw new ValidationError(issue.path.map(String).join('.') || 'body', issue.message);
}

/** The add form's data: JSON text, checked here too (the page checks it before sending). */
export function parseData(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    throw new ValidationError('data', `is not valid JSON: ${(err as Error).message}`);
  }
}

/** Runs a task action; a bad body is a ValidationError, a refusal an HttpError (404 missing, 409 otherwise). */
export async function taskAction(scheduler: Scheduler, action: TaskAction, body: unknown): Promise<TaskActionResult> {
  if (action === 'add') return add(scheduler, body);
  const { priority, ...rest } = (body ?? {}) as { priority?: unknown };
  const { queue, hash } = parseTaskBody(rest);
  if (action === 'priority') {
    const to = fields(z.object({ priority: level }), { priority });
    const change = await scheduler.changePriority(hash, to.priority, { queue, explain: true });
    if (!change.done) throw refusal(queue, hash, change.reason);
    return { ok: true, queue, hash, level: to.priority };
  }
  // Run now: the task's run-at becomes the Redis clock's now, so the next claim promotes it.
  const now = await scheduler.time();
  const change = await scheduler.reschedule(hash, now, { queue, explain: true });
  if (!change.done) throw refusal(queue, hash, change.reason);
  return { ok: true, queue, hash, runAt: now };
}

function refusal(queue: string, hash: string, reason: string): HttpError {
  if (reason === 'missing') return new HttpError(404, 'ERR_NOT_FOUND', `no task ${hash} in queue ${queue}`, 'hash');
  if (reason === 'active') return new HttpError(409, 'ERR_CONFLICT', `task ${hash} is active: its worker holds the lease`, 'hash');
  return new HttpError(409, 'ERR_CONFLICT', `task ${hash} is ${reason}: only a pending (delayed, ready or waiting) task can be changed`, 'hash');
}

/** Puts a task from the add form: put()'s de-dup rules apply, and `status` says what it did. */
async function add(scheduler: Scheduler, body: unknown): Promise<TaskActionResult> {
  const b = fields(addBody, body);
  const data = parseData(b.data);
  const put = await scheduler.put(data, {
    queue: b.queue,
    ...(b.name === undefined ? {} : { name: b.name }),
    ...(b.delay === undefined || b.delay === 0 ? {} : { delay: b.delay }),
    ...(b.priority === undefined || b.priority === 0 ? {} : { priority: b.priority }),
    ...(b.group === undefined ? {} : { group: b.group }),
    ...(b.maxAttempts === undefined ? {} : { maxAttempts: b.maxAttempts }),
  });
  return { ok: true, queue: put.queue, hash: put.hash, status: put.status, added: put.added, runAt: put.runAt };
}
