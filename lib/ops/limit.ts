/**
 * limit: set or remove the most active tasks a queue's groups may have (one group's own limit, or
 * the limit of every group without one), then move back into `grouped` the parked tasks that the
 * new limit leaves room for, a batch at a time. Allowed on a full Redis: raising a limit is how an
 * operator lets parked tasks drain.
 */
import { LEVEL_KEYS, script } from '../redis/op';
import { array, maybeText, num } from '../redis/reply';

export interface LimitInput {
  /** The group whose own limit this is, or null for the limit of every group without one. */
  group: string | null;
  /** Most active tasks at once, or null to remove the limit. */
  limit: number | null;
  /** null on the first call; else the `next` the previous call returned. */
  from: string | null;
  /** Most parked tasks to move (and groups to look at) in this call. */
  batch: number;
}

export interface LimitReply {
  /** Parked tasks that went back to `grouped`. */
  moved: number;
  /** Where to go on from, or null when no parked task is left that the limit has room for. */
  next: string | null;
}

export const limit = script<LimitInput, LimitReply>({
  name: 'limit',
  flags: 'allow-oom',
  keys: ['ready', 'wake', ...LEVEL_KEYS],
  args: ['group', 'limit', 'from', 'batch'],
  encode: (i) => [i.group ?? '', i.limit ?? '', i.from ?? '', i.batch],
  decode(reply) {
    const r = array('limit', reply, 2);
    return { moved: num('limit', r[0], 'moved'), next: maybeText('limit', r[1], 'next') };
  },
});
