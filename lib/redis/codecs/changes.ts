/**
 * The scripts that change one task or a queue's state: reschedule, priority, cancel, redrive,
 * purge, pause, unschedule (headers in lua/<name>.lua). A change to a task that the script refuses
 * says why, in the script's own answer: no caller reads the task again to guess.
 */
import { ReplyError } from '../../domain/errors';
import { array, flag, num, oneOf, text, type Codec } from './codec';

/**
 * Why a change to a task was refused: `missing`, no such task (never put, or gone); `active`, a
 * worker holds its lease (it finishes or fails it); `dead`, it used up its attempts (redrive it).
 */
export type Refusal = 'missing' | 'active' | 'dead';

/**
 * Why a redrive of one task was refused: `missing` and `active` as for any change; `pending`, it
 * waits to run (delayed, ready, or waiting on its dependencies), so it is not dead.
 */
export type RedriveRefusal = 'missing' | 'active' | 'pending';

/** A refused change, with the worker that holds the task when it is `active` (when known). */
export type Refused<R extends string = Refusal> = { done: false; reason: R; worker?: string };

/** What a change to a task did: done, or refused and why (`R`: the reasons that change can give). */
export type Change<R extends string = Refusal> = { done: true } | Refused<R>;

/** Decodes a refusal reply (`{ reason }`, or `{ 'active', worker }`) among `allowed`. */
function refusal<R extends string>(script: string, r: unknown[], allowed: readonly R[]): Refused<R> {
  const reason = oneOf(script, r[0], allowed, 'the answer');
  if (reason !== 'active') {
    array(script, r, 1);
    return { done: false, reason };
  }
  array(script, r, 2);
  const worker = text(script, r[1], 'the worker');
  return worker === '' ? { done: false, reason } : { done: false, reason, worker };
}

const REFUSALS: readonly Refusal[] = ['missing', 'active', 'dead'];

/** `{ 'moved' }`, or a refusal: `{ 'missing' }`, `{ 'active', worker }`, `{ 'dead' }`. */
export const reschedule: Codec<{ id: string; at: number }, Change> = {
  encode: (i) => [i.id, i.at],
  decode(reply) {
    const r = array('reschedule', reply, (n) => n >= 1);
    if (r[0] === 'moved') {
      array('reschedule', r, 1);
      return { done: true };
    }
    return refusal('reschedule', r, REFUSALS);
  },
};

/** What a priority change did: queued again at the new level (`moved`), only its record changed (`kept`), or already there (`same`). */
export type PriorityChange = { done: true; how: 'moved' | 'kept' | 'same' } | Refused;

const PRIORITY_DONE = ['moved', 'kept', 'same'] as const;

/** `{ 'moved' }`, `{ 'kept' }`, `{ 'same' }`, or a refusal as reschedule's. */
export const priority: Codec<{ id: string; level: number }, PriorityChange> = {
  encode: (i) => [i.id, i.level],
  decode(reply) {
    const r = array('priority', reply, (n) => n >= 1);
    if ((PRIORITY_DONE as readonly unknown[]).includes(r[0])) {
      array('priority', r, 1);
      return { done: true, how: r[0] as (typeof PRIORITY_DONE)[number] };
    }
    return refusal('priority', r, REFUSALS);
  },
};

/** A cancel that was done; `outboxed` when it left steps for other queues, for the caller to carry. */
export type Cancelled = { done: true; outboxed: boolean } | Refused;

/** `{ 'cancelled', outboxed }`, or a refusal `{ 'missing' }` or `{ 'active', worker }` (a dead task can be cancelled). */
export const cancel: Codec<{ id: string; events: number }, Cancelled> = {
  encode: (i) => [i.id, i.events],
  decode(reply) {
    const r = array('cancel', reply, (n) => n >= 1);
    if (r[0] === 'cancelled') {
      array('cancel', r, 2);
      return { done: true, outboxed: flag('cancel', r[1], 'outboxed') };
    }
    return refusal('cancel', r, ['missing', 'active']);
  },
};

/** What a redrive did: how many dead tasks went back to ready, or why task `id` was refused. */
export type Redriven = { done: true; count: number } | Refused<RedriveRefusal>;

/**
 * Task `id`, or a batch of at most `limit` of the oldest deaths (`id` null): `{ 'redriven', count }`,
 * or for one task a refusal `{ 'missing' }`, `{ 'active', worker }`, `{ 'pending' }`.
 */
export const redrive: Codec<{ id: string | null; limit: number }, Redriven> = {
  encode: (i) => [i.id ?? '', i.limit],
  decode(reply, input) {
    const r = array('redrive', reply, (n) => n >= 1);
    if (r[0] === 'redriven') {
      array('redrive', r, 2);
      const n = count('redrive', r[1], 'the count');
      if (n > (input.id === null ? input.limit : 1)) throw new ReplyError('redrive', `${n} tasks went back, more than the ${input.id === null ? input.limit : 1} asked for`);
      return { done: true, count: n };
    }
    // A batch takes only dead tasks: it refuses nothing.
    return refusal('redrive', r, input.id === null ? [] : ['missing', 'active', 'pending']);
  },
};

/** How many dead tasks were deleted, at most `limit`. */
export const purge: Codec<{ limit: number }, number> = {
  encode: (i) => [i.limit],
  decode: (reply) => count('purge', reply),
};

/** After moving at most `limit` tasks from the layout before one field per task: how many are left, and the cursor to go on from. */
export const migrate: Codec<{ limit: number; cursor: string }, { left: number; cursor: string }> = {
  encode: (i) => [i.limit, i.cursor],
  decode: (reply) => {
    const [left, cursor] = array('migrate', reply, 2);
    return { left: count('migrate', left), cursor: text('migrate', cursor, 'the cursor') };
  },
};

/** true when this call changed the queue's state, false when it was already so. */
export const pause: Codec<{ paused: boolean }, boolean> = {
  encode: (i) => [i.paused ? 1 : 0],
  decode: (reply) => flag('pause', reply, 'the reply'),
};

export interface Unscheduled {
  existed: boolean;
  /** The latest occurrence put (ms), or null. */
  latest: number | null;
}

export const unschedule: Codec<{ name: string }, Unscheduled> = {
  encode: (i) => [i.name],
  decode(reply) {
    const r = array('unschedule', reply, 2);
    return { existed: flag('unschedule', r[0], 'existed'), latest: r[1] === null ? null : num('unschedule', r[1], 'the latest occurrence') };
  },
};

function count(script: string, reply: unknown, what = 'the reply'): number {
  const n = num(script, reply, what);
  if (!Number.isInteger(n) || n < 0) throw new ReplyError(script, `${what}: expected a count, got ${n}`);
  return n;
}
