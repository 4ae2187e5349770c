/**
 * Task outcomes: what result() reads of a task, live or finished. A task put (or worked) with
 * `keepResult` keeps its outcome for that span once it finishes (lua/include/outcomes.lua).
 *
 * result(hash, { wait }) waits without polling: the finishing scripts append to the queue's events
 * stream, and the scheduler's shared readers (waiters.ts: on a standalone Redis one blocking XREAD
 * over every queue waited in, on a connection of its own) hand each finish to the callers waiting
 * for that task. So a waiting call costs Redis nothing while it waits, and a thousand of them, in
 * any number of queues, share one connection.
 */
import { result as resultOp, type KeptOutcome, type ResultReply } from '../ops/result';
import type { Context } from '../redis/context';
import { ClosedError } from '../types/errors';
import { parseMeta } from '../domain/meta';
import { viewOf } from '../domain/task';
import type { DeadOutcome, DoneOutcome, TaskOutcome } from '../types/outcome';
import type { Keyring } from '../domain/crypto';
import { waits } from './readers';
import { FINISHES, type Finish } from './waiters';

/** What docket knows of task `id` now; `stream` asks for the events stream's latest id too. */
async function read(ctx: Context, queue: string, id: string, stream: boolean): Promise<{ outcome: TaskOutcome | null; stream: string }> {
  const reply = await ctx.scripts.run(resultOp, ctx.keys(queue), { id, stream });
  return { outcome: toOutcome(ctx.keyring, queue, id, reply), stream: reply.stream };
}

function toOutcome(keyring: Keyring | null, queue: string, hash: string, reply: ResultReply): TaskOutcome | null {
  if (reply.kind === 'none') return null;
  if (reply.kind === 'kept') return fromKept(keyring, queue, hash, reply.kept);
  const meta = parseMeta(reply.meta, `the metadata of task ${hash}`);
  if (reply.state === 'dead') return { state: 'dead', hash, queue, attempts: meta.n, error: meta.err ?? null, ending: deadEnding(meta.en), finishedAt: Number(reply.diedAt) };
  const progress = reply.progress === null ? null : viewOf(keyring, reply.progress, `the progress of task ${hash}`);
  return { state: reply.state === 'active' ? 'active' : 'pending', hash, queue, attempts: meta.n, runAt: meta.r, progress: progress ?? null, ...marked(progress) };
}

/** A kept outcome, as the result codec decoded it (lua/include/outcomes.lua stores it). */
function fromKept(keyring: Keyring | null, queue: string, hash: string, kept: KeptOutcome): TaskOutcome {
  const base = { hash, queue, attempts: kept.attempts, finishedAt: kept.finishedAt };
  if (kept.state === 'done') return done(keyring, base, kept.result);
  if (kept.state === 'dead') return { ...base, state: 'dead', error: kept.error, ending: kept.ending };
  if (kept.state === 'merged') return { ...base, state: 'merged', into: kept.into };
  return { ...base, state: kept.state };
}

/** A dead task's ending, from its record's `en` or its event's `ending` (absent: failed). */
function deadEnding(stored: string | null | undefined): DeadOutcome['ending'] {
  return stored === 'unrecoverable' || stored === 'retry-later' ? stored : 'failed';
}

function finished(outcome: TaskOutcome | null): boolean {
  return outcome === null || (outcome.state !== 'pending' && outcome.state !== 'active');
}

/** The outcome of task `id`, waiting up to `waitMs` for it to finish. */
export async function result(ctx: Context, queue: string, id: string, waitMs: number, closing: AbortSignal): Promise<TaskOutcome | null> {
  if (waitMs === 0) return (await read(ctx, queue, id, false)).outcome;
  // Listening starts before the first read: a finish between the two is not missed.
  const shared = waits(ctx, closing);
  const waiter = shared.add(queue, id);
  try {
    const first = await read(ctx, queue, id, true);
    if (finished(first.outcome)) return first.outcome;
    waiter.from = first.stream;
    if (closing.aborted) throw new ClosedError('scheduler');
    shared.start(waiter);
    const ended = await waiter.until(waitMs);
    if (ended === 'closed') throw new ClosedError('scheduler');
    // A kept result small enough came with the finish event: nothing more to read.
    if (ended !== 'timeout' && ended.result !== undefined) return fromEvent(ctx.keyring, queue, id, ended);
    const now = await read(ctx, queue, id, false);
    // Finished, but nothing kept (no keepResult): the finish event itself tells what became of it.
    if (ended !== 'timeout' && !finished(now.outcome)) return fromEvent(ctx.keyring, queue, id, ended);
    return now.outcome ?? (ended === 'timeout' ? null : fromEvent(ctx.keyring, queue, id, ended));
  } finally {
    shared.remove(waiter);
  }
}

function fromEvent(keyring: Keyring | null, queue: string, hash: string, e: Finish): TaskOutcome {
  const base = { hash, queue, attempts: e.attempt, finishedAt: e.at };
  const state = FINISHES[e.type];
  if (state === 'done') return done(keyring, base, e.result || null);
  if (state === 'dead') return { ...base, state, error: e.error, ending: deadEnding(e.ending) };
  if (state === 'merged') return { ...base, state, into: e.into ?? '' };
  return { ...base, state };
}

/** A done outcome; a result encrypted with a key this scheduler lacks reads as null, marked. */
function done(keyring: Keyring | null, base: { hash: string; queue: string; attempts: number; finishedAt: number }, stored: string | null): DoneOutcome {
  const result = stored === null ? null : viewOf(keyring, stored, `the result of task ${base.hash}`);
  return { ...base, state: 'done', result: result ?? null, ...marked(result) };
}

/** The `encrypted` mark of an outcome whose value (undefined) could not be opened. */
function marked(value: unknown): { encrypted?: true } {
  return value === undefined ? { encrypted: true } : {};
}
