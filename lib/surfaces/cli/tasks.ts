/**
 * The commands that act on tasks: list a page of them by state, inspect one, and move, cancel or
 * re-queue one. A command whose task is missing, or in a state it cannot act on, fails with a
 * TargetError (exit 1) that says which.
 *
 * One concept over 300 lines: the CLI's task commands, each a few lines of argument parsing around
 * one scheduler call.
 */
import type { PreviewPage, PreviewTask } from '../../types/lists';
import type { Dependency } from '../../features/deps';
import type { LogLine, TaskInfo, TaskState } from '../../types/task';
import { resolveHash } from '../hash-prefix';
import { isoTime, printable } from '../printable';
import { ENCRYPTED } from '../../domain/crypto';
import type { Json } from '../../types/json';
import type { RedriveRefusal, Refused } from '../../types/task-calls';
import { hashArg, intArg, queueArg, stateArg } from './args';
import { positionals, TargetError, UsageError, type Command, type Run } from './command';
import { duration, fields, firstLine, instant, leaseLeft, NONE, relative, table, type Column } from './format';
import { showKept, valueText } from './outcome';
import { parseWhen, resolveWhen } from './when';

type Listed = PreviewTask;

/** A column of the list table and how to fill it from a task. */
interface Cell {
  column: Column;
  cell(task: Listed, now: number): string;
}

const HASH: Cell = { column: { title: 'HASH' }, cell: (t) => t.hash };
const NAME: Cell = { column: { title: 'NAME' }, cell: (t) => (t.name === null ? NONE : firstLine(t.name, 24)) };
const ATTEMPTS: Cell = { column: { title: 'ATTEMPTS', right: true }, cell: (t) => `${t.attempts}/${t.maxAttempts}` };
const GROUP: Cell = { column: { title: 'GROUP' }, cell: (t) => t.group ?? NONE };
/** The table shows 40 characters of a payload: reading the first few hundred bytes is enough. */
const TABLE_PREVIEW_BYTES = 256;
const DATA: Cell = { column: { title: 'DATA' }, cell: (t) => firstLine(t.preview, 40) };
const RUN_AT: Cell = { column: { title: 'RUN AT' }, cell: (t, now) => relative(t.runAt, now) };
const PRI: Cell = { column: { title: 'PRI', right: true }, cell: (t) => String(t.level) };
const KEY: Cell = { column: { title: 'KEY' }, cell: (t) => (t.key === null ? NONE : firstLine(t.key, 24)) };
const EXPIRES: Cell = { column: { title: 'EXPIRES' }, cell: (t, now) => (t.expireAt === null ? NONE : relative(t.expireAt, now)) };
const PENDING: Cell[] = [HASH, NAME, RUN_AT, PRI, ATTEMPTS, GROUP, KEY, EXPIRES, DATA];

/**
 * What the list table shows for each state: what a task still waits on, when it runs, who holds
 * it, or why it died. A waiting task has made no attempt yet, and runs no earlier than its run-at.
 */
const CELLS: Record<TaskState, Cell[]> = {
  waiting: [HASH, NAME, { column: { title: 'WAITING ON', right: true }, cell: (t) => (t.waitingOn === null ? NONE : String(t.waitingOn)) }, RUN_AT, PRI, GROUP, KEY, EXPIRES, DATA],
  ready: PENDING,
  delayed: PENDING,
  active: [
    HASH,
    NAME,
    { column: { title: 'HOLDER' }, cell: (t) => t.worker ?? NONE },
    { column: { title: 'LEASE LEFT' }, cell: (t, now) => leaseLeft(t.leaseUntil, now) },
    ATTEMPTS,
    GROUP,
    DATA,
  ],
  dead: [
    HASH,
    NAME,
    { column: { title: 'DIED' }, cell: (t, now) => (t.diedAt === null ? NONE : relative(t.diedAt, now)) },
    ATTEMPTS,
    { column: { title: 'LAST ERROR' }, cell: (t) => (t.lastError === null ? NONE : firstLine(t.lastError)) },
    DATA,
  ],
  // The history: who ran it, when it finished, and what it answered.
  done: [
    HASH,
    NAME,
    { column: { title: 'FINISHED' }, cell: (t, now) => (t.done === undefined ? NONE : relative(t.done.finishedAt, now)) },
    { column: { title: 'WORKER' }, cell: (t) => t.worker ?? NONE },
    ATTEMPTS,
    { column: { title: 'RESULT' }, cell: (t) => (t.done?.result == null ? NONE : firstLine(JSON.stringify(t.done.result), 30)) },
    DATA,
  ],
};

function pageText(queue: string, state: TaskState, offset: number, page: PreviewPage): string {
  if (page.tasks.length === 0) {
    return page.total === 0 ? `no ${state} tasks in queue '${queue}'\n` : `no ${state} tasks past offset ${offset} (${page.total} in all)\n`;
  }
  // The NAME column only when a task on the page has a name: queues without names look as before.
  const named = page.tasks.some((t) => t.name !== null);
  const cells = CELLS[state].filter((c) => c !== NAME || named);
  const body = table(
    cells.map((c) => c.column),
    page.tasks.map((t) => cells.map((c) => c.cell(t, page.now))),
  );
  const end = offset + page.tasks.length;
  const more = end < page.total ? `; next page: --offset ${end}` : '';
  return `${body}${offset + 1}-${end} of ${page.total} ${state} tasks in queue '${queue}'${more}\n`;
}

export const list: Command = {
  name: 'list',
  usage: '<queue> --state <state>',
  summary: "a page of a queue's tasks in one state",
  details:
    'Tasks come in the order they leave the state: ready in claim order, delayed by run-at, waiting longest first\n' +
    '(WAITING ON: how many of the tasks it was put after are not done yet), active by lease end, dead most recent first.',
  flags: ['state', 'limit', 'offset'],
  prepare(input) {
    const queue = queueArg(positionals('list', input, ['queue'])[0]);
    const state = stateArg(input.flags.state);
    const limit = intArg('limit', input.flags.limit, 1, 1000, 100);
    const offset = intArg('offset', input.flags.offset, 0, 1_000_000_000, 0);
    return async ({ connect, out }) => {
      const scheduler = await connect();
      // --json prints whole tasks; a table needs only the head of each payload, not up to 1,000 whole ones.
      if (out.json) {
        const page = await scheduler.list(state, { queue, limit, offset });
        out.emit({ queue, state, offset, limit, ...page }, () => '');
      } else {
        const page = await scheduler.list(state, { queue, limit, offset, preview: TABLE_PREVIEW_BYTES });
        out.emit(null, () => pageText(queue, state, offset, page));
      }
      return 0;
    };
  },
};

export function taskText(task: TaskInfo<Json>, now: number): string {
  const active = task.state === 'active';
  return fields([
    ['hash', task.hash],
    ['queue', task.queue],
    ['state', task.state],
    ['name', task.name ?? NONE],
    ['run at', instant(task.runAt, now)],
    ['expires', task.expireAt === null ? 'never' : instant(task.expireAt, now)],
    ['attempts', `${task.attempts} of ${task.maxAttempts}`],
    ['priority', String(task.level)],
    ['group', task.group ?? NONE],
    ['key', task.key ?? NONE],
    ['holder', active ? (task.worker ?? NONE) : NONE],
    ['lease left', active ? leaseLeft(task.leaseUntil, now) : NONE],
    ['progress', valueText(task.progress)],
    ...keep(task.keepResult),
    ['last error', task.lastError ?? NONE],
    // How its latest attempt that did not succeed ended: failed, unrecoverable, retry-later or snoozed.
    ['ending', task.ending ?? NONE],
    // Encrypted with a key this CLI was not given (options.encryption): said so, not shown as null.
    ['data', task.encrypted && task.data === null ? ENCRYPTED : JSON.stringify(task.data, null, 2)],
  ]);
}

/** The `keep result` line, for a task whose outcome is kept once it finishes. */
function keep(ms: number | null): Array<[string, string]> {
  if (ms === null) return [];
  return [['keep result', `${ms < 1000 ? `${ms}ms` : duration(ms)} once finished`]];
}

/**
 * The `<queue> <hash>` pair most task commands take, checked; `given` may be a short hash, which
 * the command resolves once connected (resolveHash, lib/surfaces/hash-prefix.ts).
 */
function target(args: Array<string | undefined>): { queue: string; given: string } {
  return { queue: queueArg(args[0]), given: hashArg(args[1]) };
}

export const inspect: Command = {
  name: 'inspect',
  usage: '<queue> <hash>',
  summary: 'everything known about one task, or its kept outcome once finished',
  flags: [],
  prepare(input) {
    const { queue, given } = target(positionals('inspect', input, ['queue', 'hash']));
    return async ({ connect, out }) => {
      const s = await connect();
      const hash = await resolveHash(s, queue, given);
      const task = await s.get(hash, { queue });
      // Gone from the queue: it may have finished with its outcome kept (keepResult).
      if (!task && (await showKept(s, queue, hash, out))) return 0;
      if (!task) throw new TargetError(missing(queue, hash));
      const [now, dependencies, logs] = await Promise.all([s.time(), s.dependencies(hash, { queue }), s.logs(hash, { queue })]);
      out.emit({ now, task, dependencies, logs }, () => taskText(task, now) + dependencyText(dependencies) + logText(logs));
      return 0;
    };
  },
};

/** Rows of the dependency table inspect prints; --json lists them all. */
const MAX_DEPENDENCY_ROWS = 50;

/**
 * The tasks a task was put after, as a table (nothing for a task put without `after`): each one's
 * state as result() has it, `gone` once nothing of it is kept (a waiting task counts that as done).
 */
function dependencyText(deps: Dependency[]): string {
  if (deps.length === 0) return '';
  const shown = deps.slice(0, MAX_DEPENDENCY_ROWS);
  const rows = shown.map((d) => [d.queue, d.hash, d.outcome?.state ?? 'gone']);
  const body = table([{ title: 'QUEUE' }, { title: 'HASH' }, { title: 'STATE' }], rows);
  const more = deps.length > shown.length ? `… and ${deps.length - shown.length} more (--json lists them all)\n` : '';
  const gone = rows.some((r) => r[2] === 'gone') ? 'gone: no record and no kept outcome (finished without keepResult, or never put): counts as done\n' : '';
  return `\nput after ${deps.length} task${deps.length === 1 ? '' : 's'}:\n${body}${more}${gone}`;
}

/** Log lines inspect prints, the newest; --json has them all. */
const MAX_LOG_ROWS = 20;

/**
 * The task's newest log lines, one a line with the time each was written (nothing for a task
 * that logged none). printable() writes a newline or a control in a line as an escape, so a line
 * cannot fake another or repaint the terminal.
 */
function logText(logs: LogLine[]): string {
  if (logs.length === 0) return '';
  const shown = logs.slice(-MAX_LOG_ROWS);
  const head = logs.length > shown.length ? `log (last ${shown.length} of ${logs.length} lines; --json has them all):` : `log (${logs.length} line${logs.length === 1 ? '' : 's'}):`;
  return `\n${head}\n${shown.map((l) => `${isoTime(l.at)}  ${printable(l.line)}\n`).join('')}`;
}

function missing(queue: string, hash: string): string {
  return `no task ${hash} in queue '${queue}'`;
}

/**
 * Why a reschedule, priority change or cancel left a task alone, in the script's own answer (the
 * change and its reason come from one step: nothing read after it can have moved on).
 */
function refusal(queue: string, hash: string, action: string, { reason, worker }: Refused): TargetError {
  if (reason === 'missing') return new TargetError(missing(queue, hash));
  const why =
    reason === 'active'
      ? `it is active (leased by ${worker ?? 'a worker'}); its worker finishes or fails it${action === 'cancel' ? ' (or cancel it with --running)' : ''}`
      : `it is dead; use 'docket redrive ${queue} ${hash}'`;
  return new TargetError(`cannot ${action} task ${hash} in queue '${queue}': ${why}`);
}

/** Why a redrive left a task alone, in the script's own answer, as refusal() for the other changes. */
function notDead(queue: string, hash: string, { reason, worker }: Refused<RedriveRefusal>): TargetError {
  if (reason === 'missing') return new TargetError(missing(queue, hash));
  const why = reason === 'active' ? `it is active (leased by ${worker ?? 'a worker'}), not dead` : 'it is pending (delayed, ready or waiting), not dead';
  return new TargetError(`cannot redrive task ${hash} in queue '${queue}': ${why}`);
}

export const reschedule: Command = {
  name: 'reschedule',
  usage: '<queue> <hash> <when>',
  summary: 'move a delayed, ready or waiting task to a new run-at',
  details:
    "<when> is now; +30s, +5m, +2h or +1d from now (by the Redis server's clock); epoch milliseconds;\n" + 'or an ISO 8601 date-time with Z or an offset, such as 2030-01-31T09:00:00Z.',
  flags: [],
  prepare(input) {
    const args = positionals('reschedule', input, ['queue', 'hash', 'when']);
    const { queue, given } = target(args);
    const when = parseWhen(args[2] ?? '');
    return async ({ connect, out }) => {
      const s = await connect();
      const hash = await resolveHash(s, queue, given);
      const now = await s.time();
      const runAt = resolveWhen(when, now);
      const change = await s.reschedule(hash, runAt, { queue, explain: true });
      if (!change.done) throw refusal(queue, hash, 'reschedule', change);
      out.emit({ queue, hash, runAt }, () => `rescheduled ${hash} in queue '${queue}' to ${instant(runAt, now)}\n`);
      return 0;
    };
  },
};

export const priority: Command = {
  name: 'priority',
  usage: '<queue> <hash> <level>',
  summary: 'move a ready, delayed or waiting task to another priority level',
  details:
    '<level> is 1 to 9 (9 first) or 0 for a normal task. A ready task goes to the tail of that level;\n' +
    'a delayed or waiting one takes it when it becomes ready (see changePriority in docs/api.md).',
  flags: [],
  prepare(input) {
    const args = positionals('priority', input, ['queue', 'hash', 'level']);
    const { queue, given } = target(args);
    if (!/^[0-9]$/.test(args[2] ?? '')) throw new UsageError(`priority: bad <level> '${args[2]}': expected 0 to 9`);
    const level = Number(args[2]);
    return async ({ connect, out }) => {
      const s = await connect();
      const hash = await resolveHash(s, queue, given);
      const change = await s.changePriority(hash, level, { queue, explain: true });
      if (!change.done) throw refusal(queue, hash, 'change the priority of', change);
      out.emit({ queue, hash, level }, () => `moved ${hash} in queue '${queue}' to ${level === 0 ? 'normal priority' : `priority level ${level}`}\n`);
      return 0;
    };
  },
};

export const cancel: Command = {
  name: 'cancel',
  usage: '<queue> <hash> [--running]',
  summary: 'delete a delayed, ready, waiting or dead task (with --running, an active one too)',
  details: "With --running, an active task ends cancelled at its worker's next heartbeat, which aborts its handler; its late ack or fail is refused.",
  flags: ['running'],
  prepare(input) {
    const { queue, given } = target(positionals('cancel', input, ['queue', 'hash']));
    const running = input.flags.running === true;
    return async ({ connect, out }) => {
      const s = await connect();
      const hash = await resolveHash(s, queue, given);
      const change = await s.cancel(hash, { queue, explain: true, running });
      if (!change.done) throw refusal(queue, hash, 'cancel', change);
      if ('worker' in change) {
        const by = change.worker === '' ? 'its worker' : change.worker;
        out.emit(
          { queue, hash, cancelled: true, running: true, worker: change.worker },
          () => `cancelled ${hash} in queue '${queue}': it was running; ${by} stops it at its next heartbeat\n`,
        );
      } else {
        out.emit({ queue, hash, cancelled: true }, () => `cancelled ${hash} in queue '${queue}'\n`);
      }
      return 0;
    };
  },
};

/** `redrive`, the API's word for it (Scheduler.redrive and redriveAll); `requeue-dead`, its old name, still runs it. */
export const redrive: Command = {
  name: 'redrive',
  aliases: ['requeue-dead'],
  details: "'requeue-dead' is its old name, which still works.",
  usage: '<queue> (<hash> | --all)',
  summary: 'send dead tasks back to ready, attempts reset',
  flags: ['all'],
  prepare(input) {
    const [name, given] = positionals('redrive', input, ['queue', 'hash'], 1);
    const queue = queueArg(name);
    if (given !== undefined && input.flags.all) throw new UsageError('redrive: give a <hash> or --all, not both');
    if (given === undefined && !input.flags.all) throw new UsageError('redrive: missing <hash> (or --all for every dead task)');
    if (given === undefined) return redriveEveryDead(queue);
    const short = hashArg(given);
    return async ({ connect, out }) => {
      const s = await connect();
      const hash = await resolveHash(s, queue, short);
      const change = await s.redrive(hash, { queue, explain: true });
      if (!change.done) throw notDead(queue, hash, change);
      out.emit({ queue, hash, ...redriven(1) }, () => `redrove ${hash} in queue '${queue}': it is ready\n`);
      return 0;
    };
  },
};

function redriveEveryDead(queue: string): Run {
  return async ({ connect, out }) => {
    const count = await (await connect()).redriveAll({ queue });
    out.emit({ queue, ...redriven(count) }, () => `redrove ${count} dead task${count === 1 ? '' : 's'} in queue '${queue}'\n`);
    return 0;
  };
}

/** How many tasks a redrive sent back, for --json: `redriven`, and `requeued`, its old key, kept for scripts that read it. */
function redriven(count: number): { redriven: number; requeued: number } {
  return { redriven: count, requeued: count };
}
