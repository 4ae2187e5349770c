/**
 * A queue's limits from the shell: `docket limits <queue>` shows them (concurrency with the tasks
 * leased now, rate, a backoffQueue hold, group limits), and `docket limit <queue> --concurrency
 * --rate --group-limit --hold` sets them. The flags are read in limit-flags.ts, before connecting.
 */
import type { GroupLimits } from '../groups';
import type { RateLimit } from '../rates';
import type { Scheduler } from '../scheduler';
import { queueArg } from './args';
import { positionals, UsageError, type Command } from './command';
import { exactSpan, fields, instant, NONE, table } from './format';
import { limitFlags, type LimitChanges } from './limit-flags';
import { unknownQueueNote } from './queues';

/** What `limits` prints under --json: the scheduler's three reads, side by side. */
export interface LimitsDoc {
  queue: string;
  /** The Redis clock when read (epoch ms). */
  now: number;
  /** As concurrencyLimit() has it. */
  concurrency: { limit: number | null; active: number };
  /** As rateLimits().queue has it: `per` in ms. */
  rate: RateLimit | null;
  /** As rateLimits().heldUntil has it. */
  heldUntil: number | null;
  /** As groupLimits() has it. */
  groups: GroupLimits;
}

/** The group table shows this many groups; --json gives every one. */
const MAX_GROUP_ROWS = 50;

export async function readLimits(s: Scheduler, queue: string): Promise<LimitsDoc> {
  const [now, concurrency, rates, groups] = await Promise.all([
    s.time(),
    s.concurrencyLimit({ queue }),
    s.rateLimits({ queue }),
    s.groupLimits({ queue }),
  ]);
  return { queue, now, concurrency, rate: rates.queue, heldUntil: rates.heldUntil, groups };
}

/** The limits as label/value lines, then a table of the groups with a limit of their own or tasks active. */
export function limitsText(doc: LimitsDoc): string {
  const { concurrency: c, rate, heldUntil, groups } = doc;
  const head = fields([
    ['queue', doc.queue],
    ['concurrency', `${c.limit === null ? 'no limit' : `${c.limit} at once`} (${c.active} active)`],
    ['rate', rate === null ? 'no limit' : `${rate.max} per ${exactSpan(rate.per)}`],
    ['held', heldUntil === null ? 'no' : `until ${instant(heldUntil, doc.now)}`],
    ['group limit', groups.default === null ? 'no limit' : `${groups.default} at once per group`],
  ]);
  return `${head}${groupTable(groups)}`;
}

function groupTable(g: GroupLimits): string {
  const names = [...new Set([...Object.keys(g.groups), ...Object.keys(g.active)])].sort();
  if (names.length === 0) return '';
  const limit = (name: string) => (name in g.groups ? String(g.groups[name]) : g.default === null ? NONE : `${g.default} (default)`);
  const rows = names.slice(0, MAX_GROUP_ROWS).map((name) => [name, limit(name), String(g.active[name] ?? 0)]);
  const more = names.length > MAX_GROUP_ROWS ? `${names.length - MAX_GROUP_ROWS} more groups; --json lists every one\n` : '';
  return `\n${table([{ title: 'GROUP' }, { title: 'LIMIT', right: true }, { title: 'ACTIVE', right: true }], rows)}${more}`;
}

export const limits: Command = {
  name: 'limits',
  usage: '<queue>',
  summary: "a queue's limits: concurrency (and tasks leased now), rate, hold, group limits",
  flags: [],
  prepare(input) {
    const queue = queueArg(positionals('limits', input, ['queue'])[0]);
    return async ({ connect, out, prefix }) => {
      const s = await connect();
      const [doc, note] = await Promise.all([readLimits(s, queue), unknownQueueNote(s, queue, prefix)]);
      out.emit(doc, () => `${limitsText(doc)}${note}`);
      return 0;
    };
  },
};

/** Writes the changes asked for, in the order help lists the flags; resolves one line per change. */
async function apply(s: Scheduler, queue: string, set: LimitChanges): Promise<string[]> {
  const said: string[] = [];
  if (set.concurrency !== undefined) {
    await s.limitConcurrency(set.concurrency, { queue });
    said.push(set.concurrency === null ? 'concurrency limit removed' : `concurrency limit set to ${set.concurrency}`);
  }
  if (set.rate !== undefined) {
    await (set.rate === null ? s.limitRate(null, { queue }) : s.limitRate({ ...set.rate, queue }));
    said.push(set.rate === null ? 'rate limit removed' : `rate limit set to ${set.rate.max} per ${exactSpan(set.rate.per)}`);
  }
  if (set.groupLimit !== undefined) {
    const { limit, group } = set.groupLimit;
    await s.limitGroups(limit, group === undefined ? { queue } : { queue, group });
    const whose = group === undefined ? 'group limit' : `own limit of group '${group}'`;
    said.push(limit === null ? `${whose} removed` : `${whose} set to ${limit}`);
  }
  if (set.hold !== undefined) {
    await s.backoffQueue(queue, set.hold);
    said.push(`claims held for ${exactSpan(set.hold)}`);
  }
  return said;
}

export const limit: Command = {
  name: 'limit',
  usage: '<queue> [--concurrency n|off] [--rate max/span|off] [--group-limit n|off [--group g]] [--hold span]',
  summary: "set or remove a queue's limits, for every worker of every process",
  details:
    "Each flag given is written, in the order above; the limits are then shown as 'docket limits' shows them.\n" +
    'off removes a limit. --hold holds every claim of the queue for that span (backoffQueue); a later hold replaces it.',
  flags: ['concurrency', 'rate', 'group-limit', 'group', 'hold'],
  prepare(input) {
    const queue = queueArg(positionals('limit', input, ['queue'])[0]);
    const set = limitFlags(input.flags);
    if (Object.keys(set).length === 0) throw new UsageError('limit: nothing to set: give --concurrency, --rate, --group-limit or --hold');
    return async ({ connect, out, prefix }) => {
      const s = await connect();
      const said = await apply(s, queue, set);
      const [doc, note] = await Promise.all([readLimits(s, queue), unknownQueueNote(s, queue, prefix)]);
      out.emit({ ...doc, set }, () => `${said.join('\n')}\n\n${limitsText(doc)}${note}`);
      return 0;
    };
  },
};
