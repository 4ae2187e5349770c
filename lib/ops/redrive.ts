/**
 * redrive: send dead tasks back to the ready list with their attempts reset: one task, or the
 * oldest deaths first in a batch. One task that is not dead is refused, with why.
 */
import { ReplyError } from '../types/errors';
import { LEVEL_KEYS, script } from '../redis/op';
import { array, count, refusal } from '../redis/reply';
import type { RedriveRefusal, Refused } from '../types/task-calls';

/** What a redrive did: how many dead tasks went back to ready, or why task `id` was refused. */
export type Redriven = { done: true; count: number } | Refused<RedriveRefusal>;

/**
 * Task `id`, or a batch of at most `most` of the oldest deaths (`id` null): `{ 'redriven', count }`,
 * or for one task a refusal `{ 'missing' }`, `{ 'active', worker }`, `{ 'pending' }`.
 */
export const redrive = script<{ id: string | null; most: number }, Redriven>({
  name: 'redrive',
  flags: '',
  keys: ['dead', 'ready', 'tasks', 'wake', ...LEVEL_KEYS, 'active'],
  args: ['id', 'most'],
  encode: (i) => [i.id ?? '', i.most],
  decode(reply, input) {
    const r = array('redrive', reply, (n) => n >= 1);
    if (r[0] === 'redriven') {
      array('redrive', r, 2);
      const n = count('redrive', r[1], 'the count');
      if (n > (input.id === null ? input.most : 1)) throw new ReplyError('redrive', `${n} tasks went back, more than the ${input.id === null ? input.most : 1} asked for`);
      return { done: true, count: n };
    }
    // A batch takes only dead tasks: it refuses nothing.
    return refusal('redrive', r, input.id === null ? [] : ['missing', 'active', 'pending']);
  },
});
