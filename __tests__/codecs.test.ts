/**
 * Each op's codec without Redis: its input encodes to exactly the ARGV its op names, in that order
 * (`args`, then `each` once per item), and the reply its Lua header documents decodes to the
 * typed value; a reply of any other shape is a ReplyError naming the script. Every op of lib/ops
 * has its case here (a new op adds its own).
 */
import { ReplyError } from '../lib/types/errors';
import { TASK_STATES, type NamedState as RecordState } from '../lib/domain/domain';
import type { TaskState } from '../lib/types/task';
import type { Op } from '../lib/redis/op';
import { access } from '../lib/ops/access';
import { apply } from '../lib/ops/apply';
import { beat } from '../lib/ops/beat';
import { cancel } from '../lib/ops/cancel';
import { cap } from '../lib/ops/cap';
import { claim } from '../lib/ops/claim';
import { clean } from '../lib/ops/clean';
import { extend } from '../lib/ops/extend';
import { fail } from '../lib/ops/fail';
import { get } from '../lib/ops/get';
import { limit } from '../lib/ops/limit';
import { list } from '../lib/ops/list';
import { log } from '../lib/ops/log';
import { logs } from '../lib/ops/logs';
import { migrate } from '../lib/ops/migrate';
import { obliterate } from '../lib/ops/obliterate';
import { outbox, stepQueue } from '../lib/ops/outbox';
import { keep } from '../lib/ops/keep';
import { pause } from '../lib/ops/pause';
import { gpause } from '../lib/ops/gpause';
import { order } from '../lib/ops/order';
import { priority } from '../lib/ops/priority';
import { progress } from '../lib/ops/progress';
import { purge } from '../lib/ops/purge';
import { put } from '../lib/ops/put';
import { redrive } from '../lib/ops/redrive';
import { rekey } from '../lib/ops/rekey';
import { release } from '../lib/ops/release';
import { snooze } from '../lib/ops/snooze';
import { reschedule } from '../lib/ops/reschedule';
import { result } from '../lib/ops/result';
import { stats } from '../lib/ops/stats';
import { unschedule } from '../lib/ops/unschedule';
import { hold } from '../lib/ops/hold';
import { OPS } from './support/ops';

type Slot = string | number;

interface Case<I, O> {
  input: I;
  /** The ARGV expected, by the names of the op's `args`. */
  args: Record<string, Slot>;
  /** The `each` slots expected, by name, once per item. */
  each?: Array<Record<string, Slot>>;
  /** Replies as the script's header documents them, and what each decodes to. */
  replies: Array<[reply: unknown, decoded: O]>;
  /** Replies of another shape. */
  malformed: unknown[];
}

/**
 * One op's case, typed by the op, under its name. The table holds every op, so each is kept as
 * an op of unknown input and output: the case was checked against its own types here.
 */
function cases<I, O>(op: Op<I, O>, c: Case<NoInfer<I>, NoInfer<O>>): [string, { op: Op<unknown, unknown>; c: Case<unknown, unknown> }] {
  return [op.name, { op: op as unknown as Op<unknown, unknown>, c }];
}

const LEASE = { id: 'a1', token: 'tok:1' };
const META = '{"r":1700000000000,"m":5,"n":1,"c":1700000000000}';

/** The claim case's inputs other than its acks. */
const CLAIM_SCALARS = {
  count: 2,
  lease: 30000,
  token: 'tk',
  worker: 'host:1:ab',
  deadMaxCount: 1000,
  deadMaxAge: 86400000,
  remember: 20000,
  events: 1000,
  keep: 0,
  doneMaxCount: 1000,
  doneMaxAge: 3600000,
};

const CASES = new Map([
  cases(put, {
    input: {
      maxAttempts: 5,
      schedule: '',
      events: 1000,
      items: [
        { id: 'h1', payload: '{"a":1}', options: '', after: '' },
        { id: 'h2', payload: '"x"', options: '{"a":1700000000000,"p":9}', after: 'd[["q","h1"]]' },
      ],
    },
    args: { count: 2, maxAttempts: 5, schedule: '', events: 1000, lifecycle: 0 },
    each: [
      { id: 'h1', payload: '{"a":1}', options: '', after: '' },
      { id: 'h2', payload: '"x"', options: '{"a":1700000000000,"p":9}', after: 'd[["q","h1"]]' },
    ],
    replies: [
      [
        ['h1', 1, 1700000000000, 'h2-1', 0, '1700000000500'],
        [
          { id: 'h1', code: 1, runAt: 1700000000000 },
          { id: 'h2-1', code: 0, runAt: 1700000000500 },
        ],
      ],
      [
        ['', -1, 5, 'h2', 3, 6],
        [
          { id: '', code: -1, runAt: 5 },
          { id: 'h2', code: 3, runAt: 6 },
        ],
      ],
    ],
    malformed: [null, 'h1', ['h1', 1, 1], ['h1', 7, 1, 'h2', 1, 1], ['h1', 1, 'soon', 'h2', 1, 1], [1, 1, 1, 'h2', 1, 1]],
  }),
  cases(claim, {
    input: {
      ...CLAIM_SCALARS,
      acks: [
        { id: 'done1', token: 'old:1', result: '{"ok":true}' },
        { id: 'done2', token: 'old:2', result: '' },
      ],
    },
    // Each scalar input is its own argument, as given; the acks go as their count, then their slots.
    args: { ...CLAIM_SCALARS, lifecycle: 0, beat: 0, rest: 0, holding: 0, acks: 2 },
    each: [
      { id: 'done1', ackToken: 'old:1', result: '{"ok":true}' },
      { id: 'done2', ackToken: 'old:2', result: '' },
    ],
    replies: [
      [
        [1700000000000, '', '', 0, 0, 1, 0, 'a1', '{"x":1}', 1, 1699999999000, '', '', '', '', '', '', 'b2', null, 3, 1699999990000, 1700000060000, 'tp', 60000, 5000, 'mail', 'g1'],
        {
          now: 1700000000000,
          nextDue: null,
          carryAt: null,
          stopped: false,
          acked: [true, false],
          schedules: false,
          leased: [
            { id: 'a1', payload: '{"x":1}', attempt: 1, runAt: 1699999999000, expireAt: null, trace: '', keepResult: null, timeout: null, name: null, group: null },
            { id: 'b2', payload: null, attempt: 3, runAt: 1699999990000, expireAt: 1700000060000, trace: 'tp', keepResult: 60000, timeout: 5000, name: 'mail', group: 'g1' },
          ],
        },
      ],
      [[5, 9, 7, 0, 1, 1, 1], { now: 5, nextDue: 9, carryAt: 7, stopped: false, acked: [true, true], leased: [], schedules: true }],
      [[5, 5, '', 1, 0, 1, 0], { now: 5, nextDue: 5, carryAt: null, stopped: true, acked: [true, false], leased: [], schedules: false }],
    ],
    malformed: [
      null,
      [5, '', '', 0, 0],
      [5, '', '', 0, 0, 1, 2],
      [5, '', '', 2, 0, 1, 1],
      [5, '', '', 0, 2, 1, 1],
      [5, '', '', 0, 0, 1, 1, 'a1', '{}', 1, 1, '', '', '', '', ''],
      ['now', '', '', 0, 0, 1, 1],
      [5, '', '', 0, 0, 1, 1, ...Array.from({ length: 3 }, (_, i) => [`t${i}`, '{}', 1, 1, '', '', '', '', '', '']).flat()],
    ],
  }),
  cases(extend, {
    input: { ...LEASE, by: 30000 },
    args: { id: 'a1', token: 'tok:1', by: 30000 },
    replies: [
      [1700000030000, 1700000030000],
      [0, null],
    ],
    malformed: [null, 'later', [1]],
  }),
  cases(fail, {
    input: { ...LEASE, retryIn: 2000, error: 'Error: boom', maxAttempts: null, events: 0 },
    args: { id: 'a1', token: 'tok:1', retryIn: 2000, error: 'Error: boom', maxAttempts: '', events: 0, ending: 'failed', retryAt: '', lifecycle: 0 },
    replies: [
      ['retry', { outcome: 'retry', carry: false }],
      ['dead:carry', { outcome: 'dead', carry: true }],
      ['merged', { outcome: 'merged', carry: false }],
      ['lost', { outcome: 'lost', carry: false }],
    ],
    malformed: [null, 1, 'gone', 'dead:later', 'retry:carry:carry', ':carry'],
  }),
  cases(snooze, {
    input: { ...LEASE, delay: 5000, events: 10 },
    args: { id: 'a1', token: 'tok:1', delay: 5000, events: 10 },
    replies: [
      [1, true],
      [0, false],
    ],
    malformed: [null, 2, '1', true],
  }),
  cases(release, {
    input: LEASE,
    args: { id: 'a1', token: 'tok:1' },
    replies: [
      [1, true],
      [0, false],
    ],
    malformed: [null, 2, '1', true],
  }),
  cases(beat, {
    input: { worker: 'host:1:ab', ttl: 2000, events: 10, busy: true, extend: [{ id: 'a1', token: 'tok:1', by: 30000 }] },
    args: { worker: 'host:1:ab', ttl: 2000, events: 10, busy: 1 },
    each: [{ id: 'a1', token: 'tok:1', by: 30000 }],
    replies: [
      [[0, 0, '', 0, 1700000030000], { lapsed: 0, schedules: false, watch: null, cancelled: [], extended: [1700000030000] }],
      [[3, 1, 1700000002000, 2, 'a', 'b', 0], { lapsed: 3, schedules: true, watch: 1700000002000, cancelled: ['a', 'b'], extended: [null] }],
    ],
    malformed: [null, 'x', [], [1, 0, '', 0], [1, 0, '', 2, 'a', 5], [1, 2, '', 0, 5], [1, 0, '', 0, 5, 6], [1, 0, 'soon', 0, 5]],
  }),
  cases(reschedule, {
    input: { id: 'a1', at: 1700000060000 },
    args: { id: 'a1', at: 1700000060000 },
    replies: [
      [['moved'], { done: true }],
      [['missing'], { done: false, reason: 'missing' }],
      [['active', 'host:1:ab'], { done: false, reason: 'active', worker: 'host:1:ab' }],
      [['active', ''], { done: false, reason: 'active' }],
      [['dead'], { done: false, reason: 'dead' }],
    ],
    malformed: [1, 0, null, 'moved', [], ['kept'], ['active'], ['moved', 1], ['dead', 'w'], ['active', 7]],
  }),
  cases(priority, {
    input: { id: 'a1', level: 9 },
    args: { id: 'a1', level: 9 },
    replies: [
      [['moved'], { done: true, how: 'moved' }],
      [['kept'], { done: true, how: 'kept' }],
      [['same'], { done: true, how: 'same' }],
      [['missing'], { done: false, reason: 'missing' }],
      [['active', 'w'], { done: false, reason: 'active', worker: 'w' }],
      [['dead'], { done: false, reason: 'dead' }],
    ],
    malformed: ['moved', 'missing', null, [], ['cancelled', 0], ['same', 'x'], ['active']],
  }),
  cases(cancel, {
    input: { id: 'a1', events: 1000, running: true },
    args: { id: 'a1', events: 1000, running: 1 },
    replies: [
      [['cancelled', 0], { done: true, outboxed: false }],
      [['stopping', 'host:2:cd'], { done: true, stopping: true, worker: 'host:2:cd' }],
      [['cancelled', 1], { done: true, outboxed: true }],
      [['missing'], { done: false, reason: 'missing' }],
      [['active', 'host:2:cd'], { done: false, reason: 'active', worker: 'host:2:cd' }],
    ],
    // A dead task can be cancelled: 'dead' is no refusal of cancel's.
    malformed: [1, 2, 0, null, ['cancelled'], ['cancelled', 2], ['dead'], ['moved']],
  }),
  cases(apply, {
    input: { events: 1000, steps: ['["res","q","a"]', '["unr","q","b"]'] },
    args: { events: 1000 },
    each: [{ step: '["res","q","a"]' }, { step: '["unr","q","b"]' }],
    replies: [
      [[0, ''], { left: 0, due: null }],
      [[250, '1700000000000'], { left: 250, due: 1700000000000 }],
    ],
    malformed: [null, 'soon', [''], [0], ['many', ''], [0, 'soon']],
  }),
  cases(outbox, {
    input: { lease: 10000, most: 2, carried: ['["res","q2","a"]'] },
    args: { lease: 10000, most: 2 },
    each: [{ step: '["res","q2","a"]' }],
    replies: [
      [[1700000000000], { now: 1700000000000, steps: [] }],
      [[5, '["res","q3","a"]', '["reg","q4","b"]'], { now: 5, steps: ['["res","q3","a"]', '["reg","q4","b"]'] }],
    ],
    malformed: [null, [], [5, 1], [5, 's1', 's2', 's3'], ['now']],
  }),
  cases(get, {
    input: { id: 'a1' },
    args: { id: 'a1', history: '' },
    replies: [
      [null, null],
      [['{"x":1}', META, 'waiting', null], { payload: '{"x":1}', meta: META, state: 'waiting', progress: null }],
      [[null, META, 'dead', '{"pct":50}'], { payload: null, meta: META, state: 'dead', progress: '{"pct":50}' }],
    ],
    malformed: [0, [], ['{}', META, 'gone', null], ['{}', META, 'ready'], ['{}', null, 'ready', null], ['{}', META, 'ready', 7]],
  }),
  cases(result, {
    input: { id: 'a1', stream: true },
    args: { id: 'a1', stream: '1' },
    replies: [
      [['live', META, 'dead', '', '1700000000000', '1-0'], { kind: 'live', meta: META, state: 'dead', progress: null, diedAt: 1700000000000, stream: '1-0' }],
      [['live', META, 'active', '{"p":1}', '', ''], { kind: 'live', meta: META, state: 'active', progress: '{"p":1}', diedAt: null, stream: '' }],
      [['kept', 'done|1|1|2|{}', '', '', '', '0-0'], { kind: 'kept', kept: { state: 'done', finishedAt: 1, attempts: 1, keepUntil: 2, result: '{}' }, stream: '0-0' }],
      [['kept', 'done|5|2|9|', '', '', '', ''], { kind: 'kept', kept: { state: 'done', finishedAt: 5, attempts: 2, keepUntil: 9, result: null }, stream: '' }],
      // The body is the rest of the string, '|' and newlines included.
      [
        ['kept', 'dead|5|3|9|boom | at x\ny', '', '', '', ''],
        { kind: 'kept', kept: { state: 'dead', finishedAt: 5, attempts: 3, keepUntil: 9, error: 'boom | at x\ny', ending: 'failed' }, stream: '' },
      ],
      [
        ['kept', 'dead:unrecoverable|5|1|9|bad', '', '', '', ''],
        { kind: 'kept', kept: { state: 'dead', finishedAt: 5, attempts: 1, keepUntil: 9, error: 'bad', ending: 'unrecoverable' }, stream: '' },
      ],
      [['kept', 'merged|5|1|9|h2', '', '', '', ''], { kind: 'kept', kept: { state: 'merged', finishedAt: 5, attempts: 1, keepUntil: 9, into: 'h2' }, stream: '' }],
      [['kept', 'cancelled|5|0|9|dependency q/a dead', '', '', '', ''], { kind: 'kept', kept: { state: 'cancelled', finishedAt: 5, attempts: 0, keepUntil: 9 }, stream: '' }],
      [['none', '', '', '', '', ''], { kind: 'none', stream: '' }],
    ],
    malformed: [
      null,
      ['none', '', '', '', ''],
      ['lost', '', '', '', '', ''],
      ['live', META, 'waiting', '', '', ''],
      ['kept', 1, '', '', '', ''],
      ['none', '', '', '', '', null],
      ['kept', 'done|1|1|2', '', '', '', ''],
      ['kept', 'lost|1|1|2|', '', '', '', ''],
      ['kept', 'done|soon|1|2|{}', '', '', '', ''],
    ],
  }),
  cases(progress, {
    input: { ...LEASE, value: '{"pct":5}', events: 0 },
    args: { id: 'a1', token: 'tok:1', value: '{"pct":5}', events: 0 },
    replies: [
      [1, true],
      [0, false],
    ],
    malformed: [null, 'OK', 3],
  }),
  cases(log, {
    input: { ...LEASE, maxLines: 100, maxBytes: 65536, lines: ['"one"', '"two"'] },
    args: { id: 'a1', token: 'tok:1', maxLines: 100, maxBytes: 65536 },
    each: [{ line: '"one"' }, { line: '"two"' }],
    replies: [
      [1, true],
      [0, false],
    ],
    malformed: [null, 'OK', -1],
  }),
  cases(logs, {
    input: { id: 'a1' },
    args: { id: 'a1' },
    replies: [
      [[], []],
      [
        ['1700000000000 "one"', '1700000000001 "two"'],
        ['1700000000000 "one"', '1700000000001 "two"'],
      ],
    ],
    malformed: [null, 'OK', [1], [null]],
  }),
  cases(list, {
    input: { state: 'dead', offset: 0, count: 2, preview: 16 },
    args: { state: 'dead', offset: 0, count: 2, preview: 16 },
    replies: [
      [[1700000000000, 0], { now: 1700000000000, total: 0, tasks: [] }],
      [
        [1700000000000, 7, 'a1', '{"x":', 40, META, '1699999999000', null, 'b2', null, 0, META, 12, '{"pct":'],
        {
          now: 1700000000000,
          total: 7,
          tasks: [
            { id: 'a1', payload: '{"x":', bytes: 40, meta: META, score: 1699999999000, progress: null },
            { id: 'b2', payload: null, bytes: 0, meta: META, score: 12, progress: '{"pct":' },
          ],
        },
      ],
      [[1, 1, 'r1', '1', 1, META, '', null], { now: 1, total: 1, tasks: [{ id: 'r1', payload: '1', bytes: 1, meta: META, score: null, progress: null }] }],
    ],
    malformed: [null, [1], [1, 1, 'a1', '{}', 2, META, ''], [1, 1, 'a1', '{}', 'big', META, '', null], [1, 3, ...Array.from({ length: 3 }, () => ['a', '{}', 2, META, '', null]).flat()]],
  }),
  cases(redrive, {
    input: { id: null, most: 500 },
    args: { id: '', most: 500 },
    replies: [
      [['redriven', 0], { done: true, count: 0 }],
      [['redriven', 500], { done: true, count: 500 }],
    ],
    // A batch refuses nothing, and moves at most `most`.
    malformed: [null, 500, 'all', ['redriven'], ['redriven', -1], ['redriven', 1.5], ['redriven', 501], ['missing'], ['pending']],
  }),
  cases(purge, {
    input: { most: 500 },
    args: { most: 500 },
    replies: [[12, 12]],
    malformed: [null, [12], -3],
  }),
  cases(migrate, {
    input: { most: 500, cursor: '0' },
    args: { most: 500, cursor: '0' },
    replies: [
      [[0, '0'], { left: 0, cursor: '0' }],
      [[7, '1536'], { left: 7, cursor: '1536' }],
    ],
    malformed: [null, [3], [-1, '0'], [3, 4], 7],
  }),
  cases(rekey, {
    input: {},
    args: {},
    replies: [
      [0, 0],
      [3, 3],
    ],
    malformed: [null, [3], -1, 'OK'],
  }),
  cases(stats, {
    input: {},
    args: {},
    replies: [
      [[3, 1, 2, 0, 4, 0, 0], { ready: 3, delayed: 1, active: 2, dead: 0, waiting: 4, paused: false, pausedGroups: [], counters: new Map() }],
      [
        [0, 0, 0, 5, 0, 1, 1, 'acme', 'added', '9', 'completed|mail', '4'],
        {
          ready: 0,
          delayed: 0,
          active: 0,
          dead: 5,
          waiting: 0,
          paused: true,
          pausedGroups: ['acme'],
          counters: new Map([
            ['added', 9],
            ['completed|mail', 4],
          ]),
        },
      ],
    ],
    malformed: [
      null,
      [1, 2, 3],
      [0, 0, 0, 0, 0, 0, 0, 'added'],
      [0, 0, 0, 0, 0, 2, 0],
      [0, 0, 0, 0, 0, 0, 0, 7, 1],
      [0, 0, 0, 0, 0, 0, 0, 'added', 'many'],
      [0, 0, 0, 0, 0, 0, 2, 'a'],
      [0, 0, 0, 0, 0, 0, 1, 5],
    ],
  }),
  cases(unschedule, {
    input: { name: 'nightly' },
    args: { name: 'nightly' },
    replies: [
      [[1, '1700000000000'], { existed: true, latest: 1700000000000 }],
      [[0, null], { existed: false, latest: null }],
    ],
    malformed: [null, 1, [1], [2, null], [1, 'soon']],
  }),
  cases(hold, {
    input: { name: 'nightly', paused: true },
    args: { name: 'nightly', paused: 1 },
    replies: [
      [[1, 1, '1700000000000'], { existed: true, changed: true, latest: 1700000000000 }],
      [[1, 0, null], { existed: true, changed: false, latest: null }],
      [[0, 0, null], { existed: false, changed: false, latest: null }],
    ],
    malformed: [null, 1, [1, 1], [2, 0, null], [1, 1, 'soon']],
  }),
  cases(keep, {
    input: { doneCount: 0, doneAge: 60000, deadCount: null, deadAge: null },
    args: { doneCount: 0, doneAge: 60000, deadCount: '', deadAge: '' },
    replies: [
      [2, 2],
      [0, 0],
    ],
    malformed: [null, 'OK'],
  }),
  cases(pause, {
    input: { paused: true, events: 1000 },
    args: { paused: 1, events: 1000 },
    replies: [
      [1, true],
      [0, false],
    ],
    malformed: [null, 'OK', 2],
  }),
  cases(order, {
    input: { mode: 'hold' },
    args: { mode: 'hold' },
    replies: [
      [0, 0],
      [3, 3],
    ],
    malformed: [null, 'x', -1, [1]],
  }),
  cases(gpause, {
    input: { group: 'acme', paused: false, more: true, batch: 1000, events: 0 },
    args: { group: 'acme', paused: 0, more: 1, batch: 1000, events: 0 },
    replies: [
      [[1, 0], { changed: true, moved: 0 }],
      [[0, 1000], { changed: false, moved: 1000 }],
    ],
    malformed: [null, 1, [1], [2, 0], [1, 'x']],
  }),
  cases(access, {
    input: {
      lines: [
        ['XADD', 'k', '*', 'f', 'v'],
        ['CLIENT', 'UNBLOCK', '1'],
        ['ZADD', 'k', '1', 'm'],
      ],
    },
    args: {},
    each: [{ line: '["XADD","k","*","f","v"]' }, { line: '["CLIENT","UNBLOCK","1"]' }, { line: '["ZADD","k","1","m"]' }],
    replies: [
      [null, null],
      [[], []],
      [
        [2, '', 3, 'Unknown command'],
        [
          { line: 1, reason: '' },
          { line: 2, reason: 'Unknown command' },
        ],
      ],
    ],
    malformed: [1, [2], [0, ''], [4, ''], ['x', ''], [1, 5]],
  }),
  cases(cap, {
    input: {
      fields: [
        { name: 'rate', value: 10 },
        { name: 'per|g1', value: null },
        { name: 'until', value: { after: 5000 } },
      ],
    },
    args: { count: 3 },
    each: [
      { name: 'rate', value: 10 },
      { name: 'per|g1', value: '' },
      { name: 'until', value: '+5000' },
    ],
    replies: [
      [
        ['10', '', '1700000005000'],
        [10, null, 1700000005000],
      ],
    ],
    malformed: [null, ['10', ''], ['10', '', 'x'], ['10', '', '1', '2']],
  }),
  cases(limit, {
    input: { group: null, limit: 3, from: null, batch: 1000 },
    args: { group: '', limit: 3, from: '', batch: 1000 },
    replies: [
      [[0, ''], { moved: 0, next: null }],
      [[1000, '[g1|'], { moved: 1000, next: '[g1|' }],
    ],
    malformed: [null, [0], ['x', ''], [1, 2], [1, '', 3]],
  }),
  cases(clean, {
    input: { source: 'ready9', before: null, most: 500, scan: 1000, cursor: '', events: 1000 },
    args: { source: 'ready9', before: -1, most: 500, scan: 1000, cursor: '', events: 1000 },
    replies: [
      [[12, 1, '', 0], { deleted: 12, done: true, cursor: '', outboxed: false }],
      [[500, 0, '7|0', 1], { deleted: 500, done: false, cursor: '7|0', outboxed: true }],
    ],
    malformed: [null, [1, 1, ''], [1, 2, '', 0], [1, 1, 7, 0], ['n', 1, '', 0]],
  }),
  cases(obliterate, {
    input: { force: false },
    args: { force: 0 },
    replies: [
      [['ok', 46], { status: 'ok', deleted: 46 }],
      [['carry', 45], { status: 'carry', deleted: 45 }],
      [['active', 2], { status: 'active', leased: 2 }],
    ],
    malformed: [null, 'ok', ['ok'], ['done', 1], ['active', 'two']],
  }),
]);

describe('the codecs', () => {
  it('has a case for every op of lib/ops, and no other', () => {
    expect([...CASES.keys()].sort()).toEqual(OPS.map((op) => op.name).sort());
    for (const op of OPS) expect(CASES.get(op.name)?.op).toBe(op);
  });

  it('names the same task states as the public TaskState type', () => {
    const same: [TaskState] extends [RecordState] ? ([RecordState] extends [TaskState] ? true : false) : false = true;
    expect(same).toBe(true);
    expect([...TASK_STATES].sort()).toEqual(['active', 'dead', 'delayed', 'done', 'ready', 'waiting']);
  });

  describe.each([...CASES.keys()])('%s', (name) => {
    const { op, c } = CASES.get(name)!;

    it('encodes exactly args + items × each slots, in the order of the op', () => {
      const argv = op.encode(c.input);
      const each = op.each ?? [];
      const items = c.each ?? [];
      expect(argv).toHaveLength(op.args.length + items.length * each.length);
      // The case names every slot of the op, and no other.
      expect(Object.keys(c.args).sort()).toEqual([...op.args].sort());
      for (const item of items) expect(Object.keys(item).sort()).toEqual([...each].sort());
      expect(argv).toEqual([...op.args.map((slot) => c.args[slot]), ...items.flatMap((item) => each.map((slot) => item[slot]))]);
      // Redis takes strings: every slot is a string or a finite number.
      for (const slot of argv) expect(typeof slot === 'string' || Number.isFinite(slot)).toBe(true);
    });

    it('decodes each reply its header documents', () => {
      expect(c.replies.length).toBeGreaterThan(0);
      for (const [reply, decoded] of c.replies) expect(op.decode(reply, c.input)).toEqual(decoded);
    });

    it('throws a ReplyError naming the script for a reply of another shape', () => {
      expect(c.malformed.length).toBeGreaterThan(0);
      for (const reply of c.malformed) {
        let thrown: unknown;
        try {
          op.decode(reply, c.input);
        } catch (err) {
          thrown = err;
        }
        expect({ reply, thrown }).toEqual({ reply, thrown: expect.any(ReplyError) });
        expect(thrown).toMatchObject({ code: 'ERR_REPLY', script: name, name: 'ReplyError' });
      }
    });
  });
});

describe('redrive of one task', () => {
  const input = { id: 'a1', most: 1 };

  it('encodes the task id', () => {
    expect(redrive.encode(input)).toEqual(['a1', 1]);
  });

  it('decodes done, or the refusal the script gave', () => {
    expect(redrive.decode(['redriven', 1], input)).toEqual({ done: true, count: 1 });
    expect(redrive.decode(['missing'], input)).toEqual({ done: false, reason: 'missing' });
    expect(redrive.decode(['active', 'h:1:ab'], input)).toEqual({ done: false, reason: 'active', worker: 'h:1:ab' });
    expect(redrive.decode(['active', ''], input)).toEqual({ done: false, reason: 'active' });
    expect(redrive.decode(['pending'], input)).toEqual({ done: false, reason: 'pending' });
  });

  it('throws a ReplyError for a reason redrive never gives, or more than one task', () => {
    for (const reply of [['dead'], ['pending', 'x'], ['active'], ['redriven', 2], 1]) {
      expect(() => redrive.decode(reply, input)).toThrow(ReplyError);
    }
  });
});

describe('stepQueue', () => {
  it('reads the queue a dependency step is for, and refuses anything else', () => {
    expect(stepQueue('["res","emails","a1","done"]')).toBe('emails');
    for (const bad of ['', 'not json', '{"q":1}', '["res"]', '["res",7]']) expect(() => stepQueue(bad)).toThrow(ReplyError);
  });
});
