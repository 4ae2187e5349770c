/**
 * pause: stop or restart the leasing of a queue's tasks, for every worker at once. Puts are still
 * accepted while a queue is paused; acks, fails and housekeeping go on. A change writes a `paused`
 * or `resumed` event (always: rare admin calls).
 */
import { script } from '../redis/op';
import { flag } from '../redis/reply';

/** true when this call changed the queue's state, false when it was already so. */
/** `events` the events stream's cap (0: none). */
export const pause = script<{ paused: boolean; events: number }, boolean>({
  name: 'pause',
  flags: 'allow-oom',
  keys: ['paused', 'wake', 'events'],
  args: ['paused', 'events'],
  encode: (i) => [i.paused ? 1 : 0, i.events],
  decode: (reply) => flag('pause', reply, 'the reply'),
});
