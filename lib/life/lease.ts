/**
 * Leases: claim hands a task to one worker until a deadline on the Redis clock, and builds the
 * task it leased (task.ts); the same call acks the tasks a worker finished, and an ack alone is a
 * claim call that leases nothing. What the holder may do with a lease (fail, release, extend:
 * fenced by its random token) is in holder.ts.
 */
import { newToken, type Context } from '../redis/context';
import { carry } from '../features/deps';
import { errorFields } from '../domain/log';
import { decodeCarrier, traced } from '../features/tracing';
import { tracingChannels as channels } from '../types/tracing';
import { claimOptions, countArg, eventArgs, parse } from '../domain/options';
import { claim as claimOp, type ClaimInput } from '../ops/claim';
import type { Task } from '../types/task';
import type { Via } from '../redis/scripts';
import { parseRecord } from '../domain/payload';
import type { Json } from '../types/json';
import { unseal } from '../domain/crypto';
import type { ClaimOptions } from '../types/claim';
import { checkTask, resultJson } from './holder';
import { LeasedTask } from './task';

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
    const task = new LeasedTask<T>(ctx, leased, { queue, until: now + leaseMs, token: `${token}:${i + 1}`, trace: decodeCarrier(leased.trace) }, onProblem);
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
