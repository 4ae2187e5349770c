/**
 * The flags of `docket limit`, checked before anything connects by the scheduler's own schemas
 * (lib/domain/options/), so the CLI and the API accept the same limits. `off` removes a limit; a span
 * is written as the CLI writes every span (`500ms`, `30s`, `5m`, `2h`, `1d`).
 */
import { concurrencyArg, groupLimitArg, groupLimitOptions, rateArg, spanArg } from '../../domain/options';
import type { RateLimit } from '../../types/limits';
import { spanMs } from './args';
import { UsageError, type CommandFlags } from './command';

/** What `docket limit` is asked to change; a key is present only for a flag that was given. */
export interface LimitChanges {
  concurrency?: number | null;
  rate?: RateLimit | null;
  groupLimit?: { limit: number | null; group?: string };
  /** limitRate's for one group (`group`), or for each group without its own (none). */
  groupRate?: { rate: RateLimit | null; group?: string };
  /** backoffQueue's span, in ms. */
  hold?: number;
}

/** Reads every limit flag given; a UsageError naming the first bad one. */
export function limitFlags(flags: CommandFlags): LimitChanges {
  const set: LimitChanges = {};
  if (flags.concurrency !== undefined) set.concurrency = countArg('concurrency', flags.concurrency, concurrencyArg);
  if (flags.rate !== undefined) set.rate = rateFlag('rate', flags.rate);
  if (flags.group !== undefined && flags['group-limit'] === undefined && flags['group-rate'] === undefined) {
    throw new UsageError('limit: --group names the group whose own --group-limit or --group-rate to set; give one of them too');
  }
  const group = flags.group === undefined ? {} : { group: groupFlag(flags.group) };
  if (flags['group-limit'] !== undefined) set.groupLimit = { limit: countArg('group-limit', flags['group-limit'], groupLimitArg), ...group };
  if (flags['group-rate'] !== undefined) set.groupRate = { rate: rateFlag('group-rate', flags['group-rate']), ...group };
  if (flags.hold !== undefined) set.hold = holdFlag(flags.hold);
  return set;
}

type CountSchema = typeof concurrencyArg;

/** A whole number the schema takes (1 to 100,000), or `off` for null. */
function countArg(flag: string, text: string, schema: CountSchema): number | null {
  if (text === 'off') return null;
  const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  const result = schema.safeParse(n);
  if (!result.success || result.data === null) throw new UsageError(`bad --${flag} '${text}': expected a whole number from 1 to 100000, or off`);
  return result.data;
}

/** `<max>/<span>` (`100/1m`), or `off` for null; `flag` names it in the refusal. */
function rateFlag(flag: string, text: string): RateLimit | null {
  if (text === 'off') return null;
  const m = /^(\d{1,9})\/(.+)$/.exec(text);
  const result = rateArg.safeParse({ max: m ? Number(m[1]) : NaN, per: m ? spanMs(m[2]) : NaN });
  if (!result.success) {
    throw new UsageError(`bad --${flag} '${text}': expected <max>/<span> such as 100/1m or 5/1s (max 1 to 1000000, span up to 30d), or off`);
  }
  return { max: result.data.max, per: result.data.per };
}

/** A group name, by the rule put() applies to `group`. */
function groupFlag(text: string): string {
  const result = groupLimitOptions.shape.group.safeParse(text);
  if (!result.success || result.data === undefined) throw new UsageError(`bad --group '${text}': ${result.error?.issues[0].message ?? 'expected a group name'}`);
  return result.data;
}

/** backoffQueue's span: longer than 0. */
function holdFlag(text: string): number {
  const result = spanArg.safeParse(spanMs(text));
  if (!result.success) throw new UsageError(`bad --hold '${text}': expected a span such as 30s, 5m, 1h or 1d`);
  return result.data;
}
