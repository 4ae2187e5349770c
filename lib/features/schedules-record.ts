/**
 * A schedule as Redis keeps it (the `schedules` hash: name -> JSON definition), for every() and
 * schedule() alike, and what is computed from it: the tasks its occurrences become, and which
 * occurrences a look puts. One module, so that every reader of a definition reads it one way.
 */
import { hgetall } from '../ops/commands/hashes';
import { routed } from '../ops/commands/via';
import type { Context } from '../redis/context';
import { UnreadableRecordError } from '../types/errors';
import { parse, storedDefinition, type TaskTemplate } from '../domain/options';
import { unseal } from '../domain/crypto';
import { parseRecord } from '../domain/payload';
import type { Json } from '../types/json';
import { identityOf } from '../domain/hashing';
import type { PutOptions } from '../types/put';
import { Occurrences } from './schedules-times';

/** What the schedules hash keeps per name. Fields other than the schedule and data are absent in definitions written before 0.9. */
export interface Definition {
  cron?: string;
  tz?: string;
  every?: number;
  /** The canonical JSON of each occurrence's data. */
  data: string;
  /** Written by schedule(): every work() loop of the queue keeps it going. Absent for every(). */
  stored?: true;
  /** Set by pauseSchedule(): put.lua puts none of its occurrences (lua/include/occurrences.lua). */
  paused?: true;
  template?: Partial<TaskTemplate>;
  missed?: 'skip' | 'once' | 'catch-up';
  catchUpLimit?: number;
  startAt?: number;
  endAt?: number;
  limit?: number;
  /** The last occurrence `limit` allows (epoch ms), computed once by schedule(). */
  last?: number;
}

/** How far ahead a stored schedule's occurrences are put, so that a look a little late loses none. */
export const AHEAD_MS = 3000;
/** The most occurrences one look puts for one schedule. */
const MAX_PER_LOOK = 100;

/** The de-dup key of one occurrence: the schedule's name and the occurrence's time. */
export function occurrenceKey(name: string, at: number): string {
  return `every:${name}:${at}`;
}

/** The hash of the task of occurrence `at` in `queue`, as put gave it. */
export function occurrenceHash(ctx: Context, queue: string, name: string, at: number, taskName: string | undefined): string {
  return ctx.taskId(queue, identityOf('', occurrenceKey(name, at), taskName));
}

/** The put options of occurrence `at` (or of a run-now, with its own key and no `at`). */
export function taskOptions(queue: string, template: Partial<TaskTemplate> | undefined, key: string, at?: number): PutOptions {
  const t = template ?? {};
  const given: PutOptions = { queue, key, ...(at === undefined ? {} : { at }) };
  if (t.taskName !== undefined) given.name = t.taskName;
  if (t.group !== undefined) given.group = t.group;
  if (t.priority !== undefined) given.priority = t.priority;
  if (t.timeout !== undefined) given.timeout = t.timeout;
  if (t.expire !== undefined) given.expire = t.expire;
  if (t.maxAttempts !== undefined) given.maxAttempts = t.maxAttempts;
  if (t.keepResult !== undefined) given.keepResult = t.keepResult;
  if (t.keep !== undefined) given.keep = t.keep;
  if (t.unique !== undefined) given.unique = t.unique;
  return given;
}

/**
 * The definition stored as `json` under `name`, checked as schedule() and every() check what they
 * write (storedDefinition, and its cron expression and time zone); an UnreadableRecordError naming
 * the schedule and the field when it is not one they would write, so that no reader acts on it.
 */
export function parseDefinition(name: string, json: string): Definition {
  const what = `schedule ${name}`;
  const d = parseRecord<unknown>(json, what) as Definition;
  try {
    parse(storedDefinition, d, 'definition');
    occurrencesOf(d);
  } catch (err) {
    throw new UnreadableRecordError(what, err);
  }
  return d;
}

/**
 * The latest occurrence put of schedule `name`, as the `occurred` hash keeps it (`text`), or null
 * for none; an UnreadableRecordError naming the schedule when it is no time put.lua would write.
 */
export function latestOf(name: string, text: string | null | undefined): number | null {
  if (text === null || text === undefined) return null;
  const at = Number(text);
  if (!Number.isSafeInteger(at) || at < 0) throw new UnreadableRecordError(`the latest occurrence of schedule ${name}`, new TypeError(`not a time in ms: ${text.slice(0, 40)}`));
  return at;
}

/** The occurrences of a definition that parseDefinition read. */
export function occurrencesOf(d: Definition): Occurrences {
  return Occurrences.of(d.cron === undefined ? d.every : { cron: d.cron, tz: d.tz ?? 'UTC' });
}

/** The definitions of a queue's schedules and the latest occurrence each has put, read together. */
export async function readSchedules(ctx: Context, queue: string, what: string): Promise<{ defs: Map<string, string>; latest: Map<string, string> }> {
  const keys = ctx.keys(queue);
  const deadline = { ms: ctx.options.commandTimeout, what };
  const [defs, latest] = await Promise.all([hgetall(routed(ctx.conn, keys.schedules, deadline), keys.schedules), hgetall(routed(ctx.conn, keys.occurred, deadline), keys.occurred)]);
  return { defs, latest };
}

/** The time after which a definition puts no occurrence (endAt, or its limit's last), or Infinity. */
function endOf(d: Definition): number {
  return Math.min(d.endAt ?? Infinity, d.last ?? Infinity);
}

/**
 * The occurrences one look at a stored schedule puts, at `now` (Redis clock), the latest put being
 * `latest`: those missed since `latest` as its policy says (they passed with no look: no worker up),
 * then every one up to AHEAD_MS ahead, and at least the next. put.lua skips those put already.
 * `upSince` (a worker's first look) is when that worker started: occurrences due between then and
 * its first look fell due while it was up, so they are late, not missed, and are put whatever the
 * policy.
 */
export function plan(d: Definition, occurrences: Occurrences, latest: number | null, now: number, upSince?: number): number[] {
  const due: number[] = [];
  const missed = d.missed ?? 'skip';
  const upFrom = latest === null || upSince === undefined ? now : Math.min(now, Math.max(upSince, latest));
  if (latest !== null && latest < upFrom && missed !== 'skip') {
    due.push(...occurrences.between(latest, upFrom, missed === 'once' ? 1 : (d.catchUpLimit ?? 10)));
  }
  if (upFrom < now) due.push(...occurrences.between(upFrom, now, MAX_PER_LOOK));
  const base = Math.max(latest ?? now, now, (d.startAt ?? 0) - 1);
  const ahead = occurrences.between(base, Math.max(base, now + AHEAD_MS), MAX_PER_LOOK);
  // At least the next occurrence is put, whatever its distance, unless one ahead of now is already.
  if (ahead.length === 0 && (latest === null || latest <= now)) ahead.push(occurrences.after(base));
  const end = endOf(d);
  return [...due, ...ahead].filter((at) => at >= (d.startAt ?? 0) && at <= end);
}

/**
 * The next occurrence to run at `now`, the latest put being `latest` and `pending` the run-ats of
 * the occurrences put and still waiting: the earliest of those and the next one not put yet. An
 * occurrence put and then run early (reschedule) or cancelled is not next: nothing runs at its
 * time. Null once the schedule ended, or while paused.
 */
export function nextRun(d: Definition, occurrences: Occurrences, latest: number | null, now: number, pending: number[]): number | null {
  if (d.paused) return null;
  const unput = occurrences.after(Math.max(now, latest ?? now, (d.startAt ?? 0) - 1));
  const next = Math.min(unput <= endOf(d) ? unput : Infinity, ...pending);
  return next === Infinity ? null : next;
}

/**
 * A schedule's data as stored: sealed like a payload when the scheduler encrypts (options.encryption),
 * so a schedule keeps no plaintext in Redis that its tasks would not.
 */
export function storedData(ctx: Context, canonical: string): string {
  return ctx.keyring ? ctx.keyring.seal(canonical) : canonical;
}

/**
 * A schedule's data read back: opened with any listed key. `view` (listSchedules, the CLI, the
 * dashboard) answers null for data this scheduler cannot open; putting an occurrence of it is a
 * DecryptionError.
 */
export function dataOf<T = Json>(ctx: Context, name: string, d: Definition, view: boolean): T | null {
  const what = `the data of schedule ${name}`;
  const text = unseal(ctx.keyring, d.data, what, view);
  return text === undefined ? null : parseRecord<T>(text, what);
}
