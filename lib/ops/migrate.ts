/**
 * migrate: move a batch of a queue's tasks from the layout before one field per task (a record in
 * `meta` and its payload in `data`) into `tasks`, so a queue written by an earlier docket 0.x keeps
 * its tasks. Each task moves whole in one call; createScheduler (lib/redis/layout.ts) calls it,
 * with the cursor of the last call, until nothing is left.
 */
import { script } from '../redis/op';
import { array, count, text } from '../redis/reply';

/** After moving at most `most` tasks from the layout before one field per task: how many are left, and the cursor to go on from. */
export const migrate = script<{ most: number; cursor: string }, { left: number; cursor: string }>({
  name: 'migrate',
  flags: 'allow-oom',
  keys: ['data', 'meta', 'tasks'],
  args: ['most', 'cursor'],
  encode: (i) => [i.most, i.cursor],
  decode: (reply) => {
    const [left, cursor] = array('migrate', reply, 2);
    return { left: count('migrate', left), cursor: text('migrate', cursor, 'the cursor') };
  },
});
