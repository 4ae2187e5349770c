/**
 * put's `keep` (what the queue keeps once THIS task is done), as callers write it and as a task's
 * record stores it (meta.kp, lua/include/history.lua); lib/domain/options/keep.ts checks it.
 */
import type { Meta } from './meta';
import type { Span } from './time';

/** One kind's caps for one task (put's `keep`): how many of that kind are kept, and how long. */
export interface TaskCaps {
  /** How many finished tasks of the kind the queue keeps after this one's finish (0 to 10,000,000). */
  count?: number;
  /** How long (ms or a Duration) they are kept. */
  age?: Span;
}

/**
 * What the queue keeps once THIS task finishes (BullMQ's removeOnComplete and removeOnFail), per
 * kind: `false`, this task is not kept; caps, used instead of the queue's (keep()) for the trim of
 * this finish, a cap left out being the queue's.
 */
export interface TaskKeep {
  /** Once done: the done history (lua/include/history.lua). */
  done?: false | TaskCaps;
  /** Once dead (out of attempts, or an unrecoverable error): the dead set (lua/include/deadcaps.lua). */
  dead?: false | TaskCaps;
}

/** put's `keep` back from the record's `kp` (lib/life/put.ts, keepCaps): a count of 0 is false. */
export function taskKeep(kp: NonNullable<Meta['kp']>): TaskKeep {
  const kind = (count: number | undefined, age: number | undefined): false | TaskCaps | undefined => {
    if (count === 0) return false;
    if (count === undefined && age === undefined) return undefined;
    return { ...(count === undefined ? {} : { count }), ...(age === undefined ? {} : { age }) };
  };
  const done = kind(kp.dc, kp.da);
  const dead = kind(kp.xc, kp.xa);
  return { ...(done === undefined ? {} : { done }), ...(dead === undefined ? {} : { dead }) };
}
