/**
 * reschedule: move a pending (delayed, ready or waiting) task's run-at. A ready task moved into the
 * future goes back to the delayed set; a delayed task moved to now or earlier becomes ready.
 */
import { LEVEL_KEYS, script } from '../redis/op';
import { array, REFUSALS, refusal } from '../redis/reply';
import type { Change } from '../types/task-calls';

/** `{ 'moved' }`, or a refusal: `{ 'missing' }`, `{ 'active', worker }`, `{ 'dead' }`. */
export const reschedule = script<{ id: string; at: number }, Change>({
  name: 'reschedule',
  flags: '',
  keys: ['delayed', 'ready', 'active', 'tasks', 'dead', 'wake', ...LEVEL_KEYS, 'moved'],
  args: ['id', 'at'],
  encode: (i) => [i.id, i.at],
  decode(reply) {
    const r = array('reschedule', reply, (n) => n >= 1);
    if (r[0] === 'moved') {
      array('reschedule', r, 1);
      return { done: true };
    }
    return refusal('reschedule', r, REFUSALS);
  },
});
