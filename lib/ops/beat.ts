/**
 * beat: a busy worker's heartbeat, one call per interval for all its running tasks. Renews this
 * worker's entry, extends the leases it names (fenced), ends its tasks that were cancelled while
 * they ran (lua/include/cancels.lua), for the worker to abort their handlers, and lapses at once
 * the leases of every worker whose heartbeat has run out (lua/include/alive.lua).
 */
import { DEPS_KEYS, LEVEL_KEYS, script } from '../redis/op';
import { array, flag, maybeNum, num, text } from '../redis/reply';

/** A lease to extend: the task, its token, and its new length from the server's now (ms). */
export interface Extension {
  id: string;
  token: string;
  by: number;
}

export interface BeatInput {
  worker: string;
  /** ms until this heartbeat runs out; 0 when the worker leaves. */
  ttl: number;
  /** The events stream's cap (0: none). */
  events: number;
  /** Whether the worker holds tasks: it stays in `busy`, which idle workers watch. */
  busy: boolean;
  extend: readonly Extension[];
}

export interface BeatReply {
  /** How many leases of dead workers were lapsed. */
  lapsed: number;
  /** Whether the queue has stored schedules (the worker's scheduler keeps them going). */
  schedules: boolean;
  /** For a beat that is not busy: the earliest heartbeat deadline of another busy worker (ms), or null. */
  watch: number | null;
  /** The tasks of this worker cancelled while they ran, ended now: their handlers are to be aborted. */
  cancelled: string[];
  /** For each lease to extend, in order: its new deadline (ms), or null when the lease was lost. */
  extended: Array<number | null>;
}

export const beat = script<BeatInput, BeatReply>({
  name: 'beat',
  flags: 'allow-oom',
  keys: [
    'workers',
    'busy',
    'held',
    'active',
    'wake',
    'cancels',
    'schedules',
    'tasks',
    'dead',
    'delayed',
    'counts',
    'ready',
    ...LEVEL_KEYS,
    'events',
    'results',
    'kept',
    'progress',
    'redirects',
    ...DEPS_KEYS,
    'logs',
  ],
  args: ['worker', 'ttl', 'events', 'busy'],
  each: ['id', 'token', 'by'],
  encode(i) {
    const argv: Array<string | number> = [i.worker, i.ttl, i.events, i.busy ? 1 : 0];
    for (const e of i.extend) argv.push(e.id, e.token, e.by);
    return argv;
  },
  decode(reply, input) {
    const r = array('beat', reply, (n) => n >= 4);
    const count = num('beat', r[3], 'cancelled');
    array('beat', reply, 4 + count + input.extend.length);
    const ends = r.slice(4 + count).map((until) => num('beat', until, 'a lease deadline'));
    return {
      lapsed: num('beat', r[0], 'lapsed'),
      schedules: flag('beat', r[1], 'schedules'),
      watch: maybeNum('beat', r[2], 'the next busy deadline'),
      cancelled: r.slice(4, 4 + count).map((id) => text('beat', id, 'a cancelled task')),
      extended: ends.map((until) => (until === 0 ? null : until)),
    };
  },
});
