/**
 * order: make a queue's fair groups ordered, or not (orderGroups). The setting is a field of
 * `glimits` ('|ordered'), read by claims with each group's limit; turning it off releases every
 * held head, turning it on without holdOnDead releases the holds of dead heads (and of heads whose
 * task is gone).
 */
import { script } from '../redis/op';
import { count } from '../redis/reply';

export interface OrderInput {
  /** 'on' (ordered), 'hold' (ordered, a dead head holds its group) or 'off'. */
  mode: 'on' | 'hold' | 'off';
}

/** How many held heads were released. */
export const order = script<OrderInput, number>({
  name: 'order',
  flags: 'allow-oom',
  keys: ['glimits', 'dead', 'tasks'],
  args: ['mode'],
  encode: (i) => [i.mode === 'on' ? '1' : i.mode === 'hold' ? 'hold' : ''],
  decode: (reply) => count('order', reply),
});
