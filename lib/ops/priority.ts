/**
 * priority: move a pending (ready, delayed or waiting) task to another priority level. A ready task
 * goes to the tail of the new level (FIFO within the level), in O(log N), leaving a ghost that
 * claims skip; a delayed or waiting task takes the new level when it becomes ready. A task of a
 * fair group moves between its group's two lanes (normal, priority) only when the level crosses 0.
 */
import { LEVEL_KEYS, script } from '../redis/op';
import { array, REFUSALS, refusal } from '../redis/reply';
import type { Refused } from '../types/task-calls';

/** What a priority change did: queued again at the new level (`moved`), only its record changed (`kept`), or already there (`same`). */
export type PriorityChange = { done: true; how: 'moved' | 'kept' | 'same' } | Refused;

const PRIORITY_DONE = ['moved', 'kept', 'same'] as const;

/** `{ 'moved' }`, `{ 'kept' }`, `{ 'same' }`, or a refusal as reschedule's. */
export const priority = script<{ id: string; level: number }, PriorityChange>({
  name: 'priority',
  flags: '',
  keys: ['delayed', 'ready', 'active', 'tasks', 'dead', ...LEVEL_KEYS, 'moved'],
  args: ['id', 'level'],
  encode: (i) => [i.id, i.level],
  decode(reply) {
    const r = array('priority', reply, (n) => n >= 1);
    if ((PRIORITY_DONE as readonly unknown[]).includes(r[0])) {
      array('priority', r, 1);
      return { done: true, how: r[0] as (typeof PRIORITY_DONE)[number] };
    }
    return refusal('priority', r, REFUSALS);
  },
});
