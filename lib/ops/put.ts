/**
 * put: add tasks to a queue unless an identical live task is already there (de-dup), in the mode
 * each put asks for: an until-start identity, a de-dup window, replace or debounce. Many tasks per
 * call, one `each` item per task (lib/life/put.ts makes the slots).
 */
import { DEPS_KEYS, LEVEL_KEYS, script } from '../redis/op';
import { array, num, oneOf, text } from '../redis/reply';

/** One task of a put call, serialised (see lib/life/put.ts for how each slot is made). */
export interface PutItem {
  /** The identity hash, the base id. */
  id: string;
  /** Canonical JSON payload. */
  payload: string;
  /** The options: '' for the defaults, else a JSON object of those given (lua/include/options.lua names them). */
  options: string;
  /** '' for none, else onDependencyFailure's letter then the JSON [[queue, hash], ...] it waits on. */
  after: string;
}

export interface PutInput {
  /** Deliveries before a task goes dead, for tasks whose options are ''. */
  maxAttempts: number;
  /** '' for plain puts, else the recurring schedule whose occurrences these are. */
  schedule: string;
  events: number;
  /** Write an `added` event per task added (the scheduler's option events: 'all'). Default false. */
  lifecycle?: boolean;
  items: readonly PutItem[];
}

/**
 * What became of one item: 1 added, 2 a dead task revived, 3 a pending task replaced, 0 a
 * duplicate (or an occurrence put before: then `id` is ''), -1 the schedule is gone.
 */
export type PutCode = -1 | 0 | 1 | 2 | 3;

export interface PutAnswer {
  id: string;
  code: PutCode;
  /** Run-at (ms); for a duplicate, the live task's, or when its de-dup window ends. */
  runAt: number;
}

const CODES: readonly PutCode[] = [-1, 0, 1, 2, 3];

export const put = script<PutInput, PutAnswer[]>({
  name: 'put',
  flags: '',
  keys: [
    'tasks',
    'delayed',
    'ready',
    'dead',
    'counts',
    'wake',
    'occurred',
    'schedules',
    ...LEVEL_KEYS,
    'events',
    'progress',
    'windows',
    'redirects',
    'results',
    'kept',
    ...DEPS_KEYS,
    'logs',
    'moved',
    'history',
    'done',
  ],
  args: ['count', 'maxAttempts', 'schedule', 'events', 'lifecycle'],
  each: ['id', 'payload', 'options', 'after'],
  encode(i) {
    const argv: Array<string | number> = [i.items.length, i.maxAttempts, i.schedule, i.events, i.lifecycle ? 1 : 0];
    for (const item of i.items) argv.push(item.id, item.payload, item.options, item.after);
    return argv;
  },
  decode(reply, input) {
    const r = array('put', reply, 3 * input.items.length);
    const answers: PutAnswer[] = [];
    for (let i = 0; i < r.length; i += 3) {
      answers.push({
        id: text('put', r[i], 'an id'),
        code: oneOf('put', r[i + 1], CODES, 'a code'),
        runAt: num('put', r[i + 2], 'a run-at'),
      });
    }
    return answers;
  },
});
