/**
 * cancel: delete a delayed, ready, waiting or dead task. An active task is left to its worker. The
 * tasks waiting on it learn that it was cancelled; a waiting task leaves the lists of the tasks it
 * waited on (include: deps).
 */
import { DEPS_KEYS, LEVEL_KEYS, script } from '../redis/op';
import { array, flag, refusal, type Refused } from '../redis/reply';

/** A cancel that was done; `outboxed` when it left steps for other queues, for the caller to carry. */
export type Cancelled = { done: true; outboxed: boolean } | Refused;

/** `{ 'cancelled', outboxed }`, or a refusal `{ 'missing' }` or `{ 'active', worker }` (a dead task can be cancelled). */
export const cancel = script<{ id: string; events: number }, Cancelled>({
  name: 'cancel',
  flags: 'allow-oom',
  keys: ['delayed', 'ready', 'active', 'tasks', 'dead', ...LEVEL_KEYS, 'events', 'results', 'kept', 'progress', 'redirects', 'counts', 'wake', ...DEPS_KEYS, 'logs', 'moved'],
  args: ['id', 'events'],
  encode: (i) => [i.id, i.events],
  decode(reply) {
    const r = array('cancel', reply, (n) => n >= 1);
    if (r[0] === 'cancelled') {
      array('cancel', r, 2);
      return { done: true, outboxed: flag('cancel', r[1], 'outboxed') };
    }
    return refusal('cancel', r, ['missing', 'active']);
  },
});
