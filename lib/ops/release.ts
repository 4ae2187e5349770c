/**
 * release: hand a held task back unfinished (a worker shutting down), if the caller still holds its
 * lease. The delivery is not counted against its attempts, and it goes to the head of its level's
 * ready list, since it was already due.
 */
import { LEVEL_KEYS, script } from '../redis/op';
import { flag } from '../redis/reply';

/** true when released, false when the lease was already lost. */
export const release = script<{ id: string; token: string }, boolean>({
  name: 'release',
  flags: 'allow-oom',
  keys: ['active', 'ready', 'tasks', 'held', 'wake', ...LEVEL_KEYS],
  args: ['id', 'token'],
  encode: (i) => [i.id, i.token],
  decode: (reply) => flag('release', reply, 'the reply'),
});
