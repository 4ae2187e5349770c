/**
 * The commands that act on a whole queue: its counts (stats), and pausing and resuming its claims.
 */
import type { QueueStats } from '../../types/queues';
import { UnreadableRecordError } from '../../types/errors';
import { printable } from '../printable';
import type { Scheduler } from '../../types/scheduler';
import { queueArg } from './args';
import { positionals, TargetError, UsageError, type Command } from './command';
import { groupPauseOptions } from '../../domain/options';
import { table, type Column } from './format';

/** One queue's stats, with its name. */
export interface QueueRow {
  queue: string;
  stats: QueueStats;
}

/** The stats of `queue`, or of every queue in the registry when it is undefined, by name. */
export async function readStats(s: Scheduler, queue: string | undefined): Promise<QueueRow[]> {
  const names = queue === undefined ? await s.queues() : [queue];
  return Promise.all(names.map(async (name) => ({ queue: name, stats: await s.stats({ queue: name }) })));
}

/** A row as JSON: the name, then exactly what scheduler.stats() returned. */
export function statsJson(row: QueueRow): Record<string, unknown> {
  return { queue: row.queue, ...row.stats };
}

/** The stats table's columns; watch appends its rates. */
export const STATS_COLUMNS: Column[] = [
  { title: 'QUEUE' },
  ...['READY', 'DELAYED', 'WAITING', 'ACTIVE', 'DEAD'].map((title) => ({ title, right: true })),
  { title: 'PAUSED' },
  ...['COMPLETED', 'FAILED', 'EXPIRED', 'DEDUPED'].map((title) => ({ title, right: true })),
];

/** A row's cells under STATS_COLUMNS. */
export function statsCells({ queue, stats: st }: QueueRow): string[] {
  const counts = [st.ready, st.delayed, st.waiting, st.active, st.dead];
  const totals = [st.totals.completed, st.totals.failed, st.totals.expired, st.totals.deduplicated];
  // A queue paused as a whole says yes; else the groups paused in it (pause --group), if any.
  const paused = st.paused ? 'yes' : st.pausedGroups.length > 0 ? `groups: ${st.pausedGroups.map(printable).join(', ')}` : 'no';
  return [queue, ...counts.map(String), paused, ...totals.map(String)];
}

/** Said instead of an empty table: most often the prefix is not the one the app uses. */
export function noQueues(prefix: string): string {
  return `no queues under prefix '${printable(prefix)}' (none has had a task put on it; is --prefix right?)\n`;
}

/**
 * A note for a queue no task was ever put on, else ''. Pausing or limiting a misspelt queue
 * succeeds silently in Redis; the operator should hear of it.
 */
export async function unknownQueueNote(s: Scheduler, queue: string, prefix: string): Promise<string> {
  if ((await s.queues()).includes(queue)) return '';
  return `note: no task has been put on queue '${queue}' under prefix '${prefix}'\n`;
}

/** Whether stats show anything docket keeps of a queue: a task, a lifetime total, or a pause. */
function hasTrace(st: QueueStats): boolean {
  const counts = [st.ready, st.delayed, st.waiting, st.active, st.dead, ...Object.values(st.totals)];
  return st.paused || counts.some((n) => n > 0) || Object.keys(st.byName).length > 0;
}

/**
 * Whether docket knows `queue` under this prefix: it is in the registry of queue names, or it has
 * keys that the scheduler's reads see (tasks or lifetime totals, a pause, limits, schedules). The
 * registry is read first; the rest only for a queue missing from it. `stats` are its stats, if read.
 */
export async function isKnownQueue(s: Scheduler, queue: string, stats?: QueueStats): Promise<boolean> {
  if ((await s.queues()).includes(queue) || hasTrace(stats ?? (await s.stats({ queue })))) return true;
  const [concurrency, rates, groups, schedules] = await Promise.all([
    s.concurrencyLimit({ queue }),
    s.rateLimits({ queue }),
    s.groupLimits({ queue }),
    // A schedule record docket cannot read is still a key of the queue.
    s.listSchedules({ queue }).catch((err: unknown) => (err instanceof UnreadableRecordError ? [null] : Promise.reject(err))),
  ]);
  const limits = [concurrency.limit, rates.queue, rates.eachGroup, rates.heldUntil, groups.default].some((v) => v !== null);
  const named = [rates.groups, groups.groups, groups.active].some((record) => Object.keys(record).length > 0);
  return limits || named || concurrency.active > 0 || schedules.length > 0;
}

/** Why `stats <queue>` fails for a queue docket has no trace of: most often a typo, or the wrong --prefix. */
function unknownQueue(queue: string, prefix: string): TargetError {
  return new TargetError(`unknown queue '${queue}' under prefix '${prefix}': no task was ever put on it and it has no keys (is --prefix right? 'docket stats' lists every queue)`);
}

export const stats: Command = {
  name: 'stats',
  usage: '[queue]',
  summary: 'counts and lifetime totals of a queue, or of every queue',
  details: 'A queue named that docket has no trace of (never put on, no keys under --prefix) fails with exit code 1.',
  flags: [],
  prepare(input) {
    const [name] = positionals('stats', input, ['queue'], 1);
    const queue = name === undefined ? undefined : queueArg(name);
    return async ({ connect, out, prefix }) => {
      const s = await connect();
      const rows = await readStats(s, queue);
      if (queue !== undefined && !(await isKnownQueue(s, queue, rows[0].stats))) throw unknownQueue(queue, prefix);
      const text = () => (rows.length > 0 ? table(STATS_COLUMNS, rows.map(statsCells)) : noQueues(prefix));
      out.emit({ queues: rows.map(statsJson) }, text);
      return 0;
    };
  },
};

/** pause or resume: they differ only in the state they set and the words they print. */
function pausing(paused: boolean): Command {
  const name = paused ? 'pause' : 'resume';
  return {
    name,
    usage: '<queue> [--group <name>]',
    summary: paused ? "stop every worker leasing a queue's tasks, or one group's (puts go on)" : "let workers lease a paused queue's (or group's) tasks again",
    flags: ['group'],
    prepare(input) {
      const queue = queueArg(positionals(name, input, ['queue'])[0]);
      const group = input.flags.group;
      const checked = group === undefined ? null : groupPauseOptions.shape.group.safeParse(group);
      if (checked && !checked.success) throw new UsageError(`${name}: bad --group '${group}': ${checked.error.issues[0].message}`);
      return async ({ connect, out, prefix }) => {
        const s = await connect();
        const changed = paused ? await s.pause({ queue, group }) : await s.resume({ queue, group });
        const note = await unknownQueueNote(s, queue, prefix);
        const what = group === undefined ? `queue '${queue}'` : `group '${group}' of queue '${queue}'`;
        const said = changed ? `${paused ? 'paused' : 'resumed'} ${what}` : `${what} was already ${paused ? 'paused' : 'running'}`;
        out.emit(group === undefined ? { queue, paused, changed } : { queue, group, paused, changed }, () => `${said}\n${note}`);
        return 0;
      };
    },
  };
}

export const pause = pausing(true);
export const resume = pausing(false);
