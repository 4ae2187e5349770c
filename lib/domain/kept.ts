/**
 * put's `keep` (what the queue keeps once THIS task is done), as callers write it and as a task's
 * record stores it (meta.kp, lua/include/history.lua); lib/domain/options/keep.ts checks it.
 */
import type { Meta } from './meta';
import type { TaskCaps, TaskKeep } from '../types/task';

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
