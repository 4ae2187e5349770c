/** purge: delete dead tasks for good, the oldest deaths first, a batch at a time. */
import { LEVEL_KEYS, script } from '../redis/op';
import { count } from '../redis/reply';

/** How many dead tasks were deleted, at most `most`. */
export const purge = script<{ most: number }, number>({
  name: 'purge',
  flags: 'allow-oom',
  keys: ['dead', 'tasks', 'progress', 'deplist', 'logs', 'wake', ...LEVEL_KEYS],
  args: ['most'],
  encode: (i) => [i.most],
  decode: (reply) => count('purge', reply),
});
