/**
 * Leases: claim hands a task to one worker until a deadline on the Redis clock; ack, fail and
 * extend are accepted only from the holder of the current lease (fencing by a random token).
 * One concept over 300 lines: the lease's calls, and the documented options callers pass them.
 */
import { newToken, type Context } from '../redis/context';
import { defaultBackoff } from '../domain/backoff';
import { MAX_ERROR_CHARS } from '../domain/domain';
import { ValidationError } from '../types/errors';
import { carry, dependencies } from '../features/deps';
import { errorFields, thrownText } from '../domain/log';
import { decodeCarrier, traced } from '../features/tracing';
import { tracingChannels as channels } from '../types/tracing';
import { claimOptions, countArg, eventArgs, failOptions, parse, spanArg } from '../domain/options';
import { claim as claimOp, type ClaimInput } from '../ops/claim';
import { extend as extendOp } from '../ops/extend';
import { fail as failOp, type FailOutcome } from '../ops/fail';
import { release as releaseOp } from '../ops/release';
import { snooze as snoozeOp } from '../ops/snooze';
import type { Span } from '../types/time';
import type { Task } from '../types/task';
import type { Via } from '../redis/scripts';
import { parseRecord } from '../domain/payload';
import type { Json } from '../types/json';
import { unseal } from '../domain/crypto';
import { flushProgress, outcomeJson, progressOf } from './progress';
import { flushLogs, logsOf } from './logs';
import { endingOf } from './pipeline/endings';
import type { ClaimOptions, FailOptions } from '../types/claim';

/** What a work() loop adds to its claims: its keepResult (ms, 0 for none), and who hears of refused progress writes. */
export interface Worked {
  keep?: number;
  onProblem?: (err: unknown) => void;
}

/** A finished task to ack, with its result as JSON ('' for none). */
export interface Ack {
  task: Task<unknown>;
  result: string;
}

/** What one claim call returns: the tasks, plus when to look again (both on the Redis clock). */
export interface ClaimBatch<T = Json> {
  tasks: Task<T>[];
  now: number;
  /** The next run-at or lease deadline in the queue; null when nothing is waiting. */
  nextDue: number | null;
  /** For each task acked in the same call: true when acked, false when its lease was lost. */
  acked: boolean[];
  /** Whether the queue has stored schedules, for a claim that carried a heartbeat (false otherwise). */
  schedules: boolean;
}

/**
 * An ack's token is remembered for this many command deadlines: enough for work()'s three tries
 * of an ack whose reply was lost (each within one deadline, plus pauses), and short enough that the memory of
 * acks (about 50 bytes each) is gone soon after a queue falls quiet.
 */
const ACK_MEMORY_FACTOR = 4;

/**
 * One claim.lua call: acks `acks` (finished tasks of this queue), then leases up to `count` tasks.
 * A busy worker thus pays one round trip per task: the ack of one and the claim of the next.
 * Published on `docket:ack` (when it acks) and `docket:claim` (when it leases) for tracing. `via`
 * sends it behind an idle worker's BLPOP (idle.ts).
 */
export async function claimBatch<T = Json>(
  ctx: Context,
  queue: string,
  count: number,
  leaseMs: number,
  worker: string,
  acks: readonly Ack[] = [],
  worked: Worked = {},
  via?: Via,
  heartbeat?: ClaimInput['heartbeat'],
): Promise<ClaimBatch<T>> {
  const call = () => claimCall<T>(ctx, queue, count, leaseMs, worker, acks, worked, via, heartbeat);
  const claim = count === 0 ? call : () => traced(channels.claim, () => ({ queue, count }), call);
  if (acks.length === 0) return claim();
  let batch!: ClaimBatch<T>;
  await traced(
    channels.ack,
    () => ({ queue, tasks: acks.map((a) => a.task) }),
    async () => (batch = await claim()).acked,
  );
  return batch;
}

async function claimCall<T>(
  ctx: Context,
  queue: string,
  count: number,
  leaseMs: number,
  worker: string,
  acks: readonly Ack[],
  { keep = 0, onProblem }: Worked,
  via?: Via,
  heartbeat?: ClaimInput['heartbeat'],
): Promise<ClaimBatch<T>> {
  const { deadMaxCount, deadMaxAge } = ctx.options;
  const token = newToken();
  const input: ClaimInput = {
    count,
    lease: leaseMs,
    token,
    worker,
    deadMaxCount,
    deadMaxAge,
    remember: ackMemory(ctx),
    ...eventArgs(ctx.options),
    keep,
    acks: acks.map(({ task, result }) => ({ id: task.hash, token: task.token, result })),
    heartbeat,
  };
  let reply = await ctx.scripts.run(claimOp, ctx.keys(queue), input, count === 0 ? 'ack' : 'claim', via);
  // The script passed over its bound of entries that lease nothing (ghosts of cancelled or moved
  // tasks, expired tasks, tasks it parked) and stopped: each is gone now, so the next call goes on
  // behind them. Called again at once until a task is leased or none is left, so a claim never
  // answers null while a task is ready; each call stays short, and none is made when the first
  // leased a task (a claimMany then returns what it took).
  while (reply.leased.length === 0 && reply.stopped) {
    reply = { ...(await ctx.scripts.run(claimOp, ctx.keys(queue), { ...input, acks: [] }, 'claim')), acked: reply.acked, schedules: reply.schedules };
  }
  const { now, carryAt } = reply;
  // Steps for other queues are due (a task others wait on finished): carried over apart from the
  // claim, so the worker goes on at once; a failure leaves them to the next claim.
  if (carryAt !== null && carryAt <= now) {
    void carry(ctx, queue).catch((err: unknown) => (onProblem ? onProblem(err) : ctx.log.warn({ queue, ...errorFields(err) }, 'docket: could not carry dependency steps yet')));
  }
  const tasks = reply.leased.map((leased, i) => {
    const task: Task<T> = {
      hash: leased.id,
      queue,
      data: undefined as T,
      attempt: leased.attempt,
      runAt: leased.runAt,
      expireAt: leased.expireAt,
      leaseUntil: now + leaseMs,
      token: `${token}:${i + 1}`,
      trace: decodeCarrier(leased.trace),
      keepResult: leased.keepResult,
      timeout: leased.timeout,
      name: leased.name,
      group: leased.group,
      progress: (value: Json) => progressOf(ctx, task, onProblem).report(value),
      log: (line: string) => logsOf(ctx, task, onProblem).write(line),
      dependencies: () => dependencies(ctx, queue, task.hash),
      snooze: (span: Span) => snooze(ctx, task, span),
    };
    return withData(ctx, task, leased.payload);
  });
  // (next-due covers steps a dead carrier holds: an idle worker wakes when its lease ends.)
  return { tasks, now, nextDue: reply.nextDue, acked: reply.acked, schedules: reply.schedules };
}

/**
 * Sets `task.data` from its stored payload. One the scheduler cannot decrypt (no key of that id)
 * makes `data` a getter that throws the DecryptionError: the handler that reads it fails the task
 * with it, as with any error of its own, where a throw here would fail the whole claim.
 */
function withData<T>(ctx: Context, task: Task<T>, payload: string | null): Task<T> {
  const what = `the payload of task ${task.hash}`;
  let text: string | undefined;
  try {
    // A damaged record without its payload reads as null, as it always has.
    text = unseal(ctx.keyring, payload ?? 'null', what, false);
  } catch (err) {
    const refuse = (): never => {
      throw err;
    };
    Object.defineProperty(task, 'data', { enumerable: true, configurable: true, get: refuse });
    return task;
  }
  (task as { data: T }).data = parseRecord<T>(text!, what);
  return task;
}

function ackMemory(ctx: Context): number {
  return ACK_MEMORY_FACTOR * ctx.options.commandTimeout;
}

/** Checks claim()/claimMany() arguments: the queue and the lease in ms. */
export function parseClaim(ctx: Context, options: ClaimOptions | undefined, count: unknown) {
  // Always checked: claimMany(undefined) reached claim.lua with no count (and failed in it).
  parse(countArg, count, 'count');
  const parsed = parse(claimOptions, options ?? {}, 'options');
  return { queue: parsed.queue ?? ctx.options.queue, lease: parsed.lease };
}

/**
 * Acks one task: a claim call that leases nothing. `result` (any JSON) is kept as the task's
 * outcome when the task keeps one (keepResult), and in its queue's history when it keeps one.
 */
export async function ack(ctx: Context, task: Task<unknown>, result?: unknown): Promise<boolean> {
  checkTask(ctx, task);
  return (await claimBatch(ctx, task.queue, 0, 0, '', [{ task, result: resultJson(ctx, task, result) }])).acked[0];
}

/**
 * A handler's result as ack sends it: checked whenever given (not JSON, or over maxResultBytes,
 * is a typed error), and sent ('' for none): the task's kept outcome (keepResult) and the queue's
 * history (lua/include/history.lua) keep it.
 */
export function resultJson(ctx: Context, _task: Task<unknown>, result: unknown): string {
  if (result === undefined) return '';
  return outcomeJson(ctx, result, 'result');
}

export async function fail(ctx: Context, task: Task<unknown>, options?: FailOptions): Promise<FailOutcome> {
  checkTask(ctx, task);
  const o = parse(failOptions, options ?? {}, 'options');
  const how = endingOf(o.error);
  const later = how.ending === 'retry-later' ? how : null;
  const retryIn = later?.delay ?? o.retryIn ?? defaultBackoff(task.attempt);
  const stream = eventArgs(ctx.options);
  const input = { id: task.hash, token: task.token, retryIn, error: describe(o.error), maxAttempts: o.maxAttempts ?? null, ...stream, ending: how.ending, retryAt: later?.at ?? null };
  const call = async () => {
    const { outcome, carry: carried } = await ctx.scripts.run(failOp, ctx.keys(task.queue), input);
    // A task that went dead with dependents in other queues left steps for them: carried now, not
    // at this queue's next claim. Only then: a plain fail costs no second round trip.
    if (carried) {
      void carry(ctx, task.queue).catch((err: unknown) => ctx.log.warn({ queue: task.queue, ...errorFields(err) }, 'docket: could not carry dependency steps yet'));
    }
    return outcome;
  };
  return traced(channels.fail, () => ({ queue: task.queue, task, failure: o.error }), call);
}

/** Hands a held task back unfinished, without counting the delivery; false once the lease is lost. */
export async function release(ctx: Context, task: Task<unknown>): Promise<boolean> {
  checkTask(ctx, task);
  return ctx.scripts.run(releaseOp, ctx.keys(task.queue), { id: task.hash, token: task.token });
}

/** The snoozes asked for, by task, while under way or once they succeeded (a refused one goes). */
const snoozes = new WeakMap<Task<unknown>, Promise<boolean>>();

/**
 * `task.snooze(span)`: ends the attempt uncounted, the task delayed by `span`, its lease released;
 * false once the lease is lost. Its progress and log lines go first (after it they are refused).
 */
export async function snooze(ctx: Context, task: Task<unknown>, span: Span): Promise<boolean> {
  checkTask(ctx, task);
  const delay = parse(spanArg, span, 'span');
  const call = (async () => {
    await flushProgress(task);
    await flushLogs(task);
    return ctx.scripts.run(snoozeOp, ctx.keys(task.queue), { id: task.hash, token: task.token, delay, events: ctx.options.eventsMaxLength });
  })();
  // Set before this call first awaits, so a handler that returns without awaiting it is not acked.
  // Whether any snooze of this attempt took: a later, refused one does not undo an earlier one.
  const prior = snoozes.get(task) ?? false;
  const any = Promise.all([prior, call.catch(() => false)]).then(([before, now]) => before || now);
  snoozes.set(task, any);
  // Only snoozes under way or done are remembered: after refused or failed ones, the attempt goes on as it was.
  void any.then((ok) => ok || (snoozes.get(task) === any && snoozes.delete(task)));
  return call;
}

/**
 * Whether `task` was snoozed (it never rejects), while a snooze of it is under way or once one took;
 * undefined otherwise. The worker then neither acks nor fails it, nor extends its lease.
 */
export function snoozing(task: Task<unknown>): Promise<boolean> | undefined {
  return snoozes.get(task);
}

/** Moves the lease deadline to now + `by` on the Redis clock; false once the lease is lost. */
export async function extend(ctx: Context, task: Task<unknown>, by: Span): Promise<boolean> {
  checkTask(ctx, task);
  const ms = parse(spanArg, by, 'by');
  const until = await ctx.scripts.run(extendOp, ctx.keys(task.queue), { id: task.hash, token: task.token, by: ms });
  if (until === null) return false;
  task.leaseUntil = until;
  return true;
}

export function checkTask(ctx: Context, task: Task<unknown>): void {
  const ok = typeof task === 'object' && task !== null && typeof task.hash === 'string' && typeof task.token === 'string';
  if (!ok) throw new ValidationError('task', 'expected a task returned by claim()');
  ctx.checkQueue(task.queue, 'task.queue');
}

/** A readable, bounded record of a failure. */
function describe(error: unknown): string {
  if (error === undefined) return 'failed';
  const text = thrownText(error);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}
