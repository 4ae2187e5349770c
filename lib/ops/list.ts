/**
 * list: a page of a queue's tasks in one state, in the order they will leave it, for operators.
 * Ready tasks come in claim order (priority levels 9 to 1, the fair groups, normal tasks, then the
 * parked ones); delayed, earliest run-at first; waiting, the longest waiting first; active, the
 * soonest lease end first; dead, the most recent death first; done (the history), the most recent
 * finish first.
 */
import type { TaskState } from '../types/task';
import { LEVEL_KEYS, script } from '../redis/op';
import { array, maybeNum, num, text, textOrNull } from '../redis/reply';

export interface ListInput {
  state: TaskState;
  offset: number;
  /** Most tasks in the page. */
  count: number;
  /** Most payload bytes per task; 0 for whole payloads. */
  preview: number;
}

/** One task of a page: its stored record, payload and progress cut to `preview` bytes when asked. */
export interface ListedRecord {
  id: string;
  /** The payload (or its first bytes); null when the record has none (damaged). */
  payload: string | null;
  /** The whole payload's size in bytes. */
  bytes: number;
  meta: string;
  /** The run-at (delayed), lease end (active), died-at (dead), finished-at (done), unsettled dependencies (waiting); null for ready. */
  score: number | null;
  /** The progress JSON (or its first bytes), or null. */
  progress: string | null;
}

export interface ListReply {
  now: number;
  /** Tasks in that state. */
  total: number;
  tasks: ListedRecord[];
}

/** Entries per task in a list reply. */
const LISTED_FIELDS = 6;

export const list = script<ListInput, ListReply>({
  name: 'list',
  flags: 'no-writes',
  keys: ['delayed', 'ready', 'active', 'dead', 'tasks', ...LEVEL_KEYS, 'progress', 'blocked', 'after', 'moved', 'done', 'history'],
  args: ['state', 'offset', 'count', 'preview'],
  encode: (i) => [i.state, i.offset, i.count, i.preview],
  decode(reply, input) {
    const r = array('list', reply, (n) => n >= 2 && (n - 2) % LISTED_FIELDS === 0 && (n - 2) / LISTED_FIELDS <= input.count);
    const tasks: ListedRecord[] = [];
    for (let i = 2; i < r.length; i += LISTED_FIELDS) {
      tasks.push({
        id: text('list', r[i], 'an id'),
        payload: textOrNull('list', r[i + 1], 'a payload'),
        bytes: num('list', r[i + 2], 'a size'),
        meta: text('list', r[i + 3], 'a meta'),
        score: maybeNum('list', r[i + 4], 'a score'),
        progress: textOrNull('list', r[i + 5], 'a progress'),
      });
    }
    return { now: num('list', r[0], 'now'), total: num('list', r[1], 'the total'), tasks };
  },
});
