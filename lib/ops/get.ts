/**
 * get: read one task and the state it is in, in one consistent view. The record comes back as
 * stored (meta and progress JSON): lib/domain/task.ts parses it.
 */
import { TASK_STATES } from '../domain/domain';
import type { TaskRecord } from '../domain/task';
import { script } from '../redis/op';
import { array, oneOf, text, textOrNull } from '../redis/reply';

export type { TaskRecord };

/**
 * The task's record, or null for an unknown task. `history`: only its latest done run kept in the
 * queue's history (lua/include/runs.lua); none once a put started a new run of it.
 */
export const get = script<{ id: string; history?: boolean }, TaskRecord | null>({
  name: 'get',
  flags: 'no-writes',
  keys: ['tasks', 'delayed', 'active', 'dead', 'progress', 'blocked', 'history'],
  args: ['id', 'history'],
  encode: (i) => [i.id, i.history ? '1' : ''],
  decode(reply) {
    if (reply === null) return null;
    const r = array('get', reply, 4);
    return {
      payload: textOrNull('get', r[0], 'the payload'),
      meta: text('get', r[1], 'the meta'),
      state: oneOf('get', r[2], TASK_STATES, 'the state'),
      progress: textOrNull('get', r[3], 'the progress'),
    };
  },
});
