/**
 * cancel: delete a delayed, ready, waiting or dead task. An active task is left to its worker,
 * unless `running`: then it is marked (lua/include/cancels.lua) and its holder's next beat ends
 * it. The tasks waiting on it learn that it was cancelled; a waiting task leaves the lists of the
 * tasks it waited on (include: deps).
 */
import { DEPS_KEYS, LEVEL_KEYS, script } from '../redis/op';
import { array, flag, refusal, text } from '../redis/reply';
import type { Refused } from '../types/task-calls';

/**
 * A cancel that was done; `outboxed` when it left steps for other queues, for the caller to carry.
 * `stopping`: a running task marked, for its holder `worker` ('' if not recorded) to stop.
 */
export type Cancelled = { done: true; outboxed: boolean } | { done: true; stopping: true; worker: string } | Refused;

/**
 * `{ 'cancelled', outboxed }`, `{ 'stopping', worker }` (with `running`), or a refusal
 * `{ 'missing' }` or `{ 'active', worker }` (a dead task can be cancelled).
 */
export const cancel = script<{ id: string; events: number; running?: boolean }, Cancelled>({
  name: 'cancel',
  flags: 'allow-oom',
  keys: [
    'delayed',
    'ready',
    'active',
    'tasks',
    'dead',
    ...LEVEL_KEYS,
    'events',
    'results',
    'kept',
    'progress',
    'redirects',
    'counts',
    'wake',
    ...DEPS_KEYS,
    'logs',
    'moved',
    'held',
    'cancels',
  ],
  args: ['id', 'events', 'running'],
  encode: (i) => [i.id, i.events, i.running ? 1 : 0],
  decode(reply) {
    const r = array('cancel', reply, (n) => n >= 1);
    if (r[0] === 'cancelled') {
      array('cancel', r, 2);
      return { done: true, outboxed: flag('cancel', r[1], 'outboxed') };
    }
    if (r[0] === 'stopping') {
      array('cancel', r, 2);
      return { done: true, stopping: true, worker: text('cancel', r[1], 'the worker') };
    }
    return refusal('cancel', r, ['missing', 'active']);
  },
});
