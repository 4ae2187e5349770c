/** purge: delete dead tasks for good, the oldest deaths first, a batch at a time. */
import { script } from '../redis/op';
import { count } from '../redis/reply';

/** How many dead tasks were deleted, at most `limit`. */
export const purge = script<{ limit: number }, number>({
  name: 'purge',
  flags: 'allow-oom',
  keys: ['dead', 'tasks', 'progress', 'deplist', 'logs'],
  args: ['limit'],
  encode: (i) => [i.limit],
  decode: (reply) => count('purge', reply),
});
