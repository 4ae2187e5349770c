/**
 * gpause: pause or resume one fair group of a queue. A paused group's tasks stay put (claims park
 * them, keeping their place); the other groups run. Resume moves its parked tasks back in their
 * order, as many as its limit has room for, a batch a call.
 */
import { script } from '../redis/op';
import { array, flag, num } from '../redis/reply';

export interface GroupPauseInput {
  group: string;
  /** true to pause, false to resume. */
  paused: boolean;
  /** true for a later call of the same resume: moves more tasks, changes no flag. */
  more: boolean;
  /** Most parked tasks to move in this call. */
  batch: number;
  /** The events stream's cap (0: none): a change writes a `paused` or `resumed` event with the group. */
  events: number;
}

export interface GroupPauseReply {
  /** Whether this call changed the group's state. */
  changed: boolean;
  /** Parked tasks that went back into `grouped`. */
  moved: number;
}

export const gpause = script<GroupPauseInput, GroupPauseReply>({
  name: 'gpause',
  flags: 'allow-oom',
  keys: ['glimits', 'gpaused', 'wake', 'levels', 'grouped', 'gtags', 'parked', 'gactive', 'events'],
  args: ['group', 'paused', 'more', 'batch', 'events'],
  encode: (i) => [i.group, i.paused ? 1 : 0, i.more ? 1 : 0, i.batch, i.events],
  decode(reply) {
    const r = array('gpause', reply, 2);
    return { changed: flag('gpause', r[0], 'changed'), moved: num('gpause', r[1], 'moved') };
  },
});
