/**
 * Recurring schedules from the shell: `docket schedules [queue]` lists them with their next run,
 * `docket unschedule <queue> <name>` deletes one everywhere, and `pause-schedule`,
 * `resume-schedule` and `run-schedule` pause, resume and run one now (Scheduler.listSchedules,
 * unschedule, pauseSchedule, resumeSchedule, runScheduleNow). A schedule's name is per queue, so
 * the queue comes first, as in every command.
 */
import { scheduleName } from '../../domain/options';
import type { ScheduleInfo } from '../../types/schedules';
import type { Scheduler } from '../../types/scheduler';
import { queueArg } from './args';
import { positionals, TargetError, UsageError, type Command } from './command';
import { exactSpan, firstLine, instant, NONE, table } from './format';
import { noQueues, unknownQueueNote } from './queues';

/** A schedule as `schedules` shows it: what listSchedules() has, and whether its next run is put. */
export type ScheduleRow = ScheduleInfo & {
  /** Whether the next occurrence is put already, as a delayed task: a process keeps the schedule going. */
  nextPut: boolean;
};

/** `info` with whether its next run is put: listSchedules() says it is at or before the latest put. */
function withNext(info: ScheduleInfo): ScheduleRow {
  return { ...info, nextPut: info.next !== null && info.latest !== null && info.next <= info.latest };
}

/** The schedules of `queue`, or of every queue in the registry, by queue then name. */
async function readSchedules(s: Scheduler, queue: string | undefined): Promise<{ now: number; queues: string[]; schedules: ScheduleRow[] }> {
  const [now, queues] = await Promise.all([s.time(), queue === undefined ? s.queues() : [queue]]);
  const lists = await Promise.all(queues.map((q) => s.listSchedules({ queue: q })));
  return { now, queues, schedules: lists.flat().map(withNext) };
}

/** `0 3 * * * (Europe/Berlin)` or `every 5m`: the schedule as every() was given it. */
function scheduleText(row: ScheduleRow): string {
  if (row.cron !== null) return `${row.cron} (${row.tz ?? 'UTC'})`;
  return row.every === null ? NONE : `every ${exactSpan(row.every)}`;
}

function nextText(row: ScheduleRow, now: number): string {
  if (row.paused) return 'paused';
  if (row.next === null) return NONE;
  return row.nextPut ? instant(row.next, now) : `${instant(row.next, now)}, not put yet`;
}

const COLUMNS = [{ title: 'QUEUE' }, { title: 'NAME' }, { title: 'SCHEDULE' }, { title: 'NEXT RUN' }, { title: 'DATA' }];

function schedulesText(rows: ScheduleRow[], now: number): string {
  const cells = rows.map((r) => [r.queue, r.name, scheduleText(r), nextText(r, now), firstLine(JSON.stringify(r.data) ?? 'null', 40)]);
  const unput = rows.some((r) => r.next !== null && !r.nextPut)
    ? 'not put yet: no process has put that occurrence; none declares the schedule with every() now (or, for a schedule(), no worker of its queue is up), or one is about to\n'
    : '';
  return `${table(COLUMNS, cells)}${unput}`;
}

export const schedules: Command = {
  name: 'schedules',
  usage: '[queue]',
  summary: 'the recurring schedules of a queue, or of every queue, with their next run',
  details:
    'NEXT RUN is the occurrence put ahead of time by the processes that declare the schedule (every()); one marked\n' +
    "'not put yet' is the schedule's next time, which no process has put: none declares it now, or one is about to.",
  flags: [],
  prepare(input) {
    const [name] = positionals('schedules', input, ['queue'], 1);
    const queue = name === undefined ? undefined : queueArg(name);
    return async ({ connect, out, prefix }) => {
      const s = await connect();
      const { now, queues, schedules: rows } = await readSchedules(s, queue);
      const note = queue === undefined ? '' : await unknownQueueNote(s, queue, prefix);
      const none = queue !== undefined ? `no schedules in queue '${queue}'\n` : queues.length === 0 ? noQueues(prefix) : `no schedules under prefix '${prefix}'\n`;
      out.emit({ now, schedules: rows }, () => `${rows.length > 0 ? schedulesText(rows, now) : none}${note}`);
      return 0;
    };
  },
};

/** A schedule's name, by the rule every() applies. */
function nameArg(text: string | undefined): string {
  const result = scheduleName.safeParse(text);
  if (!result.success) throw new UsageError(`invalid schedule name '${text}': ${result.error.issues[0].message}`);
  return result.data;
}

export const unschedule: Command = {
  name: 'unschedule',
  usage: '<queue> <name>',
  summary: 'delete a recurring schedule everywhere, and cancel its pending occurrence',
  details:
    'Every process stops putting its occurrences at its next look; the pending one is cancelled unless it is running.\n' +
    'A process that declares the schedule again with every() (one still running the old code, at its next start) brings it back.',
  flags: [],
  prepare(input) {
    const [queueText, nameText] = positionals('unschedule', input, ['queue', 'name']);
    const queue = queueArg(queueText);
    const name = nameArg(nameText);
    return async ({ connect, out }) => {
      const s = await connect();
      if (!(await s.unschedule(name, { queue }))) throw new TargetError(`no schedule '${name}' in queue '${queue}' ('docket schedules ${queue}' lists them)`);
      out.emit({ queue, name, unscheduled: true }, () => `unscheduled '${name}' in queue '${queue}'; its pending occurrence, unless running, is cancelled\n`);
      return 0;
    };
  },
};

/** A command on one schedule, `<queue> <name>`, whose call answers what it did or false/null when it did nothing. */
function onSchedule(name: string, summary: string, details: string, call: (s: Scheduler, schedule: string, queue: string) => Promise<{ json: object; text: string } | null>): Command {
  return {
    name,
    usage: '<queue> <name>',
    summary,
    details,
    flags: [],
    prepare(input) {
      const [queueText, nameText] = positionals(name, input, ['queue', 'name']);
      const queue = queueArg(queueText);
      const schedule = nameArg(nameText);
      return async ({ connect, out }) => {
        const done = await call(await connect(), schedule, queue);
        if (done === null) throw new TargetError(`no schedule '${schedule}' in queue '${queue}' ('docket schedules ${queue}' lists them)`);
        out.emit({ queue, name: schedule, ...done.json }, () => `${done.text}\n`);
        return 0;
      };
    },
  };
}

/** Whether schedule `name` exists, for pause and resume, whose false also means "already so". */
async function exists(s: Scheduler, name: string, queue: string): Promise<boolean> {
  return (await s.listSchedules({ queue })).some((info) => info.name === name);
}

/** pause-schedule or resume-schedule: a false from the call is "already so", or no such schedule. */
function holdCommand(paused: boolean, summary: string, details: string): Command {
  const [verb, already] = paused ? ['paused', 'was paused already'] : ['resumed', 'was not paused'];
  return onSchedule(paused ? 'pause-schedule' : 'resume-schedule', summary, details, async (s, name, queue) => {
    const changed = await (paused ? s.pauseSchedule(name, { queue }) : s.resumeSchedule(name, { queue }));
    if (!changed && !(await exists(s, name, queue))) return null;
    return { json: { paused, changed }, text: changed ? `${verb} '${name}' in queue '${queue}'` : `'${name}' in queue '${queue}' ${already}` };
  });
}

export const pauseSchedule = holdCommand(
  true,
  'pause a schedule everywhere, and cancel the occurrences put ahead',
  'No process puts its occurrences until resume-schedule; those already put are cancelled unless running.',
);

export const resumeSchedule = holdCommand(false, 'resume a paused schedule from its next time', 'The occurrences that fell due while it was paused are skipped, whatever its missed policy.');

export const runSchedule = onSchedule(
  'run-schedule',
  'put one task of a schedule now, with its data and task template',
  'Not an occurrence: the schedule goes on as before, paused or not.',
  async (s, name, queue) => {
    const put = await s.runScheduleNow(name, { queue });
    return put === null ? null : { json: { put }, text: `put ${put.hash} for '${name}' in queue '${queue}' (${put.status})` };
  },
);
