/** unschedule: delete a recurring schedule, so that no process puts its occurrences any more. */
import { script } from '../redis/op';
import { array, flag, num } from '../redis/reply';

export interface Unscheduled {
  existed: boolean;
  /** The latest occurrence put (ms), or null. */
  latest: number | null;
}

export const unschedule = script<{ name: string }, Unscheduled>({
  name: 'unschedule',
  flags: '',
  keys: ['schedules', 'occurred'],
  args: ['name'],
  encode: (i) => [i.name],
  decode(reply) {
    const r = array('unschedule', reply, 2);
    return { existed: flag('unschedule', r[0], 'existed'), latest: r[1] === null ? null : num('unschedule', r[1], 'the latest occurrence') };
  },
});
