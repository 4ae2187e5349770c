/**
 * `docket workers`: the live workers of a queue, or of every queue in the registry, and what each
 * holds, read as the dashboard's workers page reads them (lib/surfaces/live.ts): each work()
 * worker with its heartbeat deadline, then any holder of leases without a heartbeat (a process
 * calling claim() itself). A worker whose heartbeat ran out shows as gone until the next beat of
 * another worker lapses its leases and drops it.
 */
import { MAX_HELD, MAX_WORKERS, readWorkersPage, type WorkersPage, type WorkerView } from '../live';
import { queueArg } from './args';
import { positionals, UsageError, type Command } from './command';
import { duration, NONE, table } from './format';
import { noQueues } from './queues';

/** Hashes listed per worker in the table; --json lists every one read. */
const SHOWN_HASHES = 3;

/** How a worker's heartbeat stands at `now`. */
function heartbeat(w: WorkerView, now: number): string {
  if (w.beatUntil === null) return 'none: claim() called directly';
  return w.beatUntil > now ? `alive (next deadline in ${duration(w.beatUntil - now)})` : `gone (ran out ${duration(now - w.beatUntil)} ago)`;
}

function holdsText(hashes: string[]): string {
  if (hashes.length === 0) return NONE;
  const more = hashes.length > SHOWN_HASHES ? ` … and ${hashes.length - SHOWN_HASHES} more` : '';
  return `${hashes.slice(0, SHOWN_HASHES).join(' ')}${more}`;
}

/** One row per worker of each queue; a note for a queue with none, or one cut to the bounds of the read. */
function workersText(pages: WorkersPage[], prefix: string): string {
  if (pages.length === 0) return noQueues(prefix);
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const p of pages) {
    if (!p.available) {
      notes.push(`queue '${p.queue}': workers cannot be read through this scheduler`);
      continue;
    }
    const v = p.view;
    rows.push(...v.workers.map((w) => [p.queue, w.id, heartbeat(w, p.now), String(w.holds.length), holdsText(w.holds)]));
    if (v.workers.length === 0) notes.push(`queue '${p.queue}': no worker is running, and no task is leased`);
    if (v.workerCount > MAX_WORKERS || v.heldCount > MAX_HELD) {
      notes.push(`queue '${p.queue}': showing the first ${MAX_WORKERS} of ${v.workerCount} workers and ${MAX_HELD} of ${v.heldCount} leases`);
    }
  }
  const columns = [{ title: 'QUEUE' }, { title: 'WORKER' }, { title: 'HEARTBEAT' }, { title: 'HOLDS', right: true }, { title: 'TASKS' }];
  const body = rows.length > 0 ? table(columns, rows) : '';
  return `${body}${notes.map((n) => `${n}\n`).join('')}`;
}

export const workers: Command = {
  name: 'workers',
  usage: '[queue | --queue <queue>]',
  summary: 'the live workers of a queue, or of every queue, and the tasks each holds',
  details:
    "As the dashboard's workers page shows them: each work() worker with its heartbeat, then any holder of leases " +
    'without one (a process calling claim() itself). A worker whose heartbeat ran out shows as gone until ' +
    `another worker's next beat lapses its leases. At most ${MAX_WORKERS} workers and ${MAX_HELD} leases are read per queue.`,
  flags: ['queue'],
  prepare(input) {
    const [given] = positionals('workers', input, ['queue'], 1);
    if (given !== undefined && input.flags.queue !== undefined) throw new UsageError('workers: give the queue once: as <queue> or --queue');
    const name = given ?? input.flags.queue;
    const queue = name === undefined ? undefined : queueArg(name);
    return async ({ connect, out, prefix }) => {
      const s = await connect();
      const names = queue === undefined ? await s.queues() : [queue];
      const pages = await Promise.all(names.map((q) => readWorkersPage(s, q)));
      out.emit({ queues: pages }, () => workersText(pages, prefix));
      return 0;
    };
  },
};
