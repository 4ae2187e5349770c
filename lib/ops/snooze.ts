/**
 * snooze: the handler ends its attempt without counting it (task.snooze(span)), if the caller still
 * holds the lease (fencing): the lease is released, the delivery is not counted against its
 * attempts, and the task waits `delay` ms from the server's now, its ending 'snoozed'.
 */
import { LEVEL_KEYS, script } from '../redis/op';
import { flag } from '../redis/reply';

export interface SnoozeInput {
  id: string;
  token: string;
  /** ms from the server's now until it runs again. */
  delay: number;
  events: number;
}

/** true when snoozed, false when the lease was already lost (nothing changed). */
export const snooze = script<SnoozeInput, boolean>({
  name: 'snooze',
  flags: 'allow-oom',
  keys: ['active', 'delayed', 'ready', 'tasks', 'held', 'wake', 'events', 'limits', ...LEVEL_KEYS],
  args: ['id', 'token', 'delay', 'events'],
  encode: (i) => [i.id, i.token, i.delay, i.events],
  decode: (reply) => flag('snooze', reply, 'the reply'),
});
