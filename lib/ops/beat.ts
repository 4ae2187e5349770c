/**
 * beat: a worker's heartbeat. Renews this worker's entry, and lapses at once the leases of every
 * worker whose heartbeat has run out (it crashed or hangs), so their tasks are re-delivered within
 * about the heartbeat's ttl instead of after their full lease. It also ends the tasks of this
 * worker that were cancelled while they ran (lua/include/cancels.lua), for the worker to abort
 * their handlers.
 */
import { DEPS_KEYS, LEVEL_KEYS, script } from '../redis/op';
import { array, num, text } from '../redis/reply';

export interface BeatReply {
  /** How many leases of dead workers were lapsed. */
  lapsed: number;
  /** The tasks of this worker cancelled while they ran, ended now: their handlers are to be aborted. */
  cancelled: string[];
}

/** `ttl` 0 when the worker leaves; `events` the events stream's cap (0: none). */
export const beat = script<{ worker: string; ttl: number; events: number }, BeatReply>({
  name: 'beat',
  flags: 'allow-oom',
  keys: [
    'workers',
    'held',
    'active',
    'wake',
    'cancels',
    'tasks',
    'dead',
    'delayed',
    'counts',
    'ready',
    ...LEVEL_KEYS,
    'events',
    'results',
    'kept',
    'progress',
    'redirects',
    ...DEPS_KEYS,
    'logs',
  ],
  args: ['worker', 'ttl', 'events'],
  encode: (i) => [i.worker, i.ttl, i.events],
  decode(reply) {
    const r = array('beat', reply, (n) => n >= 1);
    return { lapsed: num('beat', r[0], 'lapsed'), cancelled: r.slice(1).map((id) => text('beat', id, 'a cancelled task')) };
  },
});
