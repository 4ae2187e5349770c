/**
 * A queue's limits from the shell: `docket limits <queue>` shows them (concurrency with the tasks
 * leased now, rate, a backoffQueue hold, group limits and group rates), and `docket limit <queue>
 * --concurrency --rate --group-limit --group-rate --hold` sets them, each through the scheduler's
 * own call (limitConcurrency, limitRate, limitGroups, backoffQueue). The flags are read in
 * limit-flags.ts, before connecting.
 */
import type { GroupLimits, RateLimit } from '../../types/limits';
import type { Scheduler } from '../../types/scheduler';
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
  /** As rateLimits().eachGroup has it: the rate of each group without its own. */
  groupRate: RateLimit | null;
  /** As rateLimits().groups has it: the groups with a rate of their own. */
  groupRates: Record<string, RateLimit>;
  /** As rateLimits().heldUntil has it. */
  heldUntil: number | null;
  /** As groupLimits() has it. */
  groups: GroupLimits;
}

/** The group table shows this many groups; --json gives every one. */
const MAX_GROUP_ROWS = 50;

export async function readLimits(s: Scheduler, queue: string): Promise<LimitsDoc> {
  const [now, concurrency, rates, groups] = await Promise.all([s.time(), s.concurrencyLimit({ queue }), s.rateLimits({ queue }), s.groupLimits({ queue })]);
  const { queue: rate, eachGroup: groupRate, groups: groupRates, heldUntil } = rates;
  return { queue, now, concurrency, rate, groupRate, groupRates, heldUntil, groups };
}

/** `100 per 1m`: the window as the --rate flag takes it, so what is shown can be typed again. */
function rateText(rate: RateLimit): string {
  return `${rate.max} per ${exactSpan(rate.per)}`;
}

/** The limits as label/value lines, then a table of the groups with a limit or rate of their own, or tasks active. */
export function limitsText(doc: LimitsDoc): string {
  const { concurrency: c, rate, heldUntil, groups, groupRate } = doc;
  const head = fields([
    ['queue', doc.queue],
    ['concurrency', `${c.limit === null ? 'no limit' : `${c.limit} at once`} (${c.active} active)`],
    ['rate', rate === null ? 'no limit' : rateText(rate)],
    ['held', heldUntil === null ? 'no' : `until ${instant(heldUntil, doc.now)}`],
    ['group limit', groups.default === null ? 'no limit' : `${groups.default} at once per group`],
    ['group rate', groupRate === null ? 'no limit' : `${rateText(groupRate)} per group`],
  ]);
  return `${head}${groupTable(doc)}`;
}

/** A group's own entry of `record` (a group may be named `constructor`), or undefined. */
function own<T>(record: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** A group's own value, else the default marked as such, else NONE. */
function ownOrDefault<T>(value: T | undefined, fallback: T | null, show: (value: T) => string): string {
  if (value !== undefined) return show(value);
  return fallback === null ? NONE : `${show(fallback)} (default)`;
}

function groupTable({ groups: g, groupRate, groupRates }: LimitsDoc): string {
  const names = [...new Set([...Object.keys(g.groups), ...Object.keys(g.active), ...Object.keys(groupRates)])].sort();
  if (names.length === 0) return '';
  const row = (name: string) => [name, ownOrDefault(own(g.groups, name), g.default, String), String(own(g.active, name) ?? 0), ownOrDefault(own(groupRates, name), groupRate, rateText)];
  const columns = [{ title: 'GROUP' }, { title: 'LIMIT', right: true }, { title: 'ACTIVE', right: true }, { title: 'RATE' }];
  const more = names.length > MAX_GROUP_ROWS ? `${names.length - MAX_GROUP_ROWS} more groups; --json lists every one\n` : '';
  return `\n${table(columns, names.slice(0, MAX_GROUP_ROWS).map(row))}${more}`;
}

export const limits: Command = {
  name: 'limits',
  usage: '<queue>',
  summary: "a queue's limits: concurrency (and tasks leased now), rate, hold, group limits and rates",
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
  if (set.groupRate !== undefined) {
    const { rate, group } = set.groupRate;
    // One group's own rate, or the rate of each group without one (eachGroup).
    const scope = group === undefined ? { queue, eachGroup: true } : { queue, group };
    await (rate === null ? s.limitRate(null, scope) : s.limitRate({ ...rate, ...scope }));
    const whose = group === undefined ? 'group rate' : `own rate of group '${group}'`;
    said.push(rate === null ? `${whose} removed` : `${whose} set to ${rateText(rate)}`);
  }
  if (set.hold !== undefined) {
    await s.backoffQueue(queue, set.hold);
    said.push(`claims held for ${exactSpan(set.hold)}`);
  }
  return said;
}

export const limit: Command = {
  name: 'limit',
  usage: '<queue> [--concurrency n|off] [--rate max/span|off] [--group-limit n|off] [--group-rate max/span|off] [--group g] [--hold span]',
  summary: "set or remove a queue's limits, for every worker of every process",
  details:
    "Each flag given is written, in the order above; the limits are then shown as 'docket limits' shows them.\n" +
    "off removes a limit. --group-limit and --group-rate set the default of every group, or with --group that group's own.\n" +
    '--hold holds every claim of the queue for that span (backoffQueue); a later hold replaces it.',
  flags: ['concurrency', 'rate', 'group-limit', 'group-rate', 'group', 'hold'],
  prepare(input) {
    const queue = queueArg(positionals('limit', input, ['queue'])[0]);
    const set = limitFlags(input.flags);
    if (Object.keys(set).length === 0) throw new UsageError('limit: nothing to set: give --concurrency, --rate, --group-limit, --group-rate or --hold');
    return async ({ connect, out, prefix }) => {
      const s = await connect();
      const said = await apply(s, queue, set);
      const [doc, note] = await Promise.all([readLimits(s, queue), unknownQueueNote(s, queue, prefix)]);
      out.emit({ ...doc, set }, () => `${said.join('\n')}\n\n${limitsText(doc)}${note}`);
      return 0;
    };
  },
};
