/**
 * pause: stop or restart the leasing of a queue's tasks, for every worker at once. Puts are still
 * accepted while a queue is paused; acks, fails and housekeeping go on.
 */
import { script } from '../redis/op';
import { flag } from '../redis/reply';

/** true when this call changed the queue's state, false when it was already so. */
export const pause = script<{ paused: boolean }, boolean>({
  name: 'pause',
  flags: 'allow-oom',
  keys: ['paused', 'wake'],
  args: ['paused'],
  encode: (i) => [i.paused ? 1 : 0],
  decode: (reply) => flag('pause', reply, 'the reply'),
});
