/**
 * beat: a worker's heartbeat. Renews this worker's entry, and lapses at once the leases of every
 * worker whose heartbeat has run out (it crashed or hangs), so their tasks are re-delivered within
 * about the heartbeat's ttl instead of after their full lease.
 */
import { script } from '../redis/op';
import { num } from '../redis/reply';

/** How many leases of dead workers were lapsed. `ttl` 0 when the worker leaves. */
export const beat = script<{ worker: string; ttl: number }, number>({
  name: 'beat',
  flags: 'allow-oom',
  keys: ['workers', 'held', 'active', 'wake'],
  args: ['worker', 'ttl'],
  encode: (i) => [i.worker, i.ttl],
  decode: (reply) => num('beat', reply, 'the reply'),
});
