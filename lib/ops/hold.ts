/** hold: pause or resume one schedule (every() or schedule()) for every process at once. */
import { script } from '../redis/op';
import { array, flag, num } from '../redis/reply';

export interface Held {
  existed: boolean;
  /** Whether this call changed the schedule (false: it was paused, or running, already). */
  changed: boolean;
  /** The latest occurrence put (ms), or null. */
  latest: number | null;
}

export const hold = script<{ name: string; paused: boolean }, Held>({
  name: 'hold',
  flags: '',
  keys: ['schedules', 'occurred'],
  args: ['name', 'paused'],
  encode: (i) => [i.name, i.paused ? 1 : 0],
  decode(reply) {
    const r = array('hold', reply, 3);
    return {
      existed: flag('hold', r[0], 'existed'),
      changed: flag('hold', r[1], 'changed'),
      latest: r[2] === null ? null : num('hold', r[2], 'the latest occurrence'),
    };
  },
});
