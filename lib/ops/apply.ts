/**
 * apply: apply dependency steps a client carried over from another queue's outbox (include: deps):
 * settle a waiting task's dependency, register a task of another queue as waiting on one of this
 * queue, or forget such a registration. Each step is idempotent, so a step carried twice changes
 * nothing the second time. Then a batch of the steps waiting in this queue's `settle`
 * (lib/features/deps.ts calls it with no step until none is left). A step is a JSON string.
 */
import { DEPS_KEYS, LEVEL_KEYS, script } from '../redis/op';
import { array, maybeNum, num } from '../redis/reply';

export interface ApplyReply {
  /** Steps still waiting in this queue's `settle` list (a failure down a long chain): call again. */
  left: number;
  /** When this queue's own outbox has steps due (ms), or null: the steps made new ones to carry on. */
  due: number | null;
}

export const apply = script<{ events: number; steps: readonly string[] }, ApplyReply>({
  name: 'apply',
  flags: 'allow-oom',
  keys: ['tasks', 'delayed', 'ready', 'dead', 'counts', 'wake', ...LEVEL_KEYS, 'events', 'results', 'kept', 'progress', 'redirects', ...DEPS_KEYS, 'logs'],
  args: ['events'],
  each: ['step'],
  encode: (i) => [i.events, ...i.steps],
  decode(reply) {
    const r = array('apply', reply, (n) => n === 2);
    return { left: num('apply', r[0], 'the steps left'), due: maybeNum('apply', r[1], 'the outbox due time') };
  },
});
