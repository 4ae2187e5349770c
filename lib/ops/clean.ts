/**
 * clean: delete one batch of a queue's ready, delayed or dead tasks, read from one source; the
 * caller (lib/features/clean.ts) walks the sources of a state and calls again from the cursor
 * returned, so no call examines more than `scan` entries or deletes more than `most` tasks. A
 * claimed task is in no source, so a clean never deletes it. A pending task goes as cancel deletes
 * it, a dead one as purge does.
 */
import type { READY_LEVELS } from '../domain/keys';
import { DEPS_KEYS, LEVEL_KEYS, script } from '../redis/op';
import { array, flag, num, text } from '../redis/reply';

/** Where clean reads a batch from: the dead set, the delayed set, or one of the ready structures. */
export type CleanSource = 'dead' | 'delayed' | 'ready' | (typeof READY_LEVELS)[number] | 'grouped' | 'parked';

export interface CleanInput {
  source: CleanSource;
  /** Only tasks put (dead ones: died) at or before this time (epoch ms); null for all. */
  before: number | null;
  /** Most tasks to delete in this call. */
  most: number;
  /** Most entries to examine in this call. */
  scan: number;
  /** Where the previous call in this source stopped; '' to start. */
  cursor: string;
  events: number;
}

export interface CleanReply {
  deleted: number;
  /** The source is done: no call from `cursor` would find more. */
  done: boolean;
  cursor: string;
  /** Steps for other queues were made (tasks there waited on deleted ones): carry them. */
  outboxed: boolean;
}

export const clean = script<CleanInput, CleanReply>({
  name: 'clean',
  flags: 'allow-oom',
  keys: ['delayed', 'ready', 'tasks', 'dead', ...LEVEL_KEYS, 'events', 'results', 'kept', 'progress', 'redirects', 'counts', 'wake', ...DEPS_KEYS, 'logs', 'moved'],
  args: ['source', 'before', 'most', 'scan', 'cursor', 'events'],
  encode: (i) => [i.source, i.before ?? -1, i.most, i.scan, i.cursor, i.events],
  decode(reply) {
    const r = array('clean', reply, 4);
    return { deleted: num('clean', r[0], 'deleted'), done: flag('clean', r[1], 'done'), cursor: text('clean', r[2], 'the cursor'), outboxed: flag('clean', r[3], 'outboxed') };
  },
});
