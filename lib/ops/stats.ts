/** stats: count a queue's tasks by state, plus its lifetime counters, in one consistent view. */
import { LEVEL_KEYS, script } from '../redis/op';
import { array, flag, num, text } from '../redis/reply';

export interface StatsReply {
  ready: number;
  delayed: number;
  active: number;
  dead: number;
  waiting: number;
  paused: boolean;
  /** The paused groups (pause({ queue, group })), by name. */
  pausedGroups: string[];
  /** The queue's lifetime counters, by field of its `counts` hash ('completed', 'completed|<name>', ...). */
  counters: Map<string, number>;
}

export const stats = script<Record<string, never>, StatsReply>({
  name: 'stats',
  flags: 'no-writes',
  keys: ['ready', 'delayed', 'active', 'dead', 'counts', ...LEVEL_KEYS, 'paused', 'blocked', 'moved', 'gpaused'],
  args: [],
  encode: () => [],
  decode(reply) {
    const r = array('stats', reply, (n) => n >= 7);
    const groups = num('stats', r[6], 'the paused groups');
    const from = 7 + groups;
    array('stats', r, (n) => n >= from && (n - from) % 2 === 0);
    const pausedGroups = r.slice(7, from).map((g) => text('stats', g, 'a paused group'));
    const counters = new Map<string, number>();
    for (let i = from; i < r.length; i += 2) counters.set(text('stats', r[i], 'a counter name'), num('stats', r[i + 1], 'a count'));
    return {
      ready: num('stats', r[0], 'ready'),
      delayed: num('stats', r[1], 'delayed'),
      active: num('stats', r[2], 'active'),
      dead: num('stats', r[3], 'dead'),
      waiting: num('stats', r[4], 'waiting'),
      paused: flag('stats', r[5], 'paused'),
      pausedGroups: pausedGroups.sort(),
      counters,
    };
  },
});
