/**
 * A cron expression's times are wall-clock times in its time zone; this module turns one into the
 * instants it names, with the daylight-saving rule stated in docs/guide/delays-and-schedules.md
 * (the rule Vixie cron follows):
 * - a wall time that a spring-forward skips: a fixed-time expression runs once, at the first instant
 *   after the gap (02:30 on New York's spring-forward runs at 03:00 EDT); a wildcard one (its
 *   minute or hour field starts with `*`) does not run it, as that time never comes;
 * - a wall time that a fall-back repeats: a fixed-time expression runs once, at its first
 *   occurrence; a wildcard one runs at both.
 * Offsets come from Intl (the same zone data luxon reads), never from a search that can fail.
 */

/** A wall-clock time as epoch ms: its fields read in UTC (so 02:30 local is 02:30 UTC of that date). */
export type Wall = number;

const HOUR_MS = 3_600_000;
/** Instants this far either side of a wall time bracket the offsets it may have (zones span -12 h to +14 h). */
const SPAN_MS = 24 * HOUR_MS;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formats.set(tz, f);
  }
  return f;
}

/** The zone's offset from UTC at instant `t` (ms; positive east of Greenwich), as Intl reads it. */
function readOffset(tz: string, t: number): number {
  const p: Record<string, number> = {};
  for (const { type, value } of formatOf(tz).formatToParts(new Date(t))) if (type !== 'literal') p[type] = Number(value);
  const whole = t - (((t % 1000) + 1000) % 1000);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - whole;
}

/** Per zone, the offset of each UTC day whose start and end have the same one (no zone changes twice a day). */
const days = new Map<string, Map<number, number>>();
const DAY_MS = 24 * HOUR_MS;
/** Days remembered per zone before the memory starts again: a walk of a daily schedule over 270 years stays fast. */
const MAX_DAYS = 100_000;

/** The zone's offset from UTC at instant `t` (ms; positive east of Greenwich). */
export function offsetAt(tz: string, t: number): number {
  if (tz === 'UTC') return 0;
  let known = days.get(tz);
  if (!known) days.set(tz, (known = new Map()));
  const day = Math.floor(t / DAY_MS);
  const whole = known.get(day);
  if (whole !== undefined) return whole;
  const start = readOffset(tz, day * DAY_MS);
  if (start !== readOffset(tz, (day + 1) * DAY_MS - 1)) return readOffset(tz, t);
  if (known.size >= MAX_DAYS) known.clear();
  known.set(day, start);
  return start;
}

/** The wall-clock time at instant `t`. */
export function wallOf(tz: string, t: number): Wall {
  return t + offsetAt(tz, t);
}

/** The first instant in (lo, hi] whose offset is not lo's: where a change between them happens. */
function changeBetween(tz: string, lo: number, hi: number): number {
  const before = offsetAt(tz, lo);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(tz, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The instants at which wall time `w` comes in zone `tz`, earliest first, by the rule above: none
 * (a wildcard expression's time in a gap), one, or two (a wildcard one's time that a fall-back
 * repeats).
 */
export function instantsOf(tz: string, w: Wall, wildcard: boolean): number[] {
  if (tz === 'UTC') return [w];
  const offsets = [...new Set([offsetAt(tz, w - SPAN_MS), offsetAt(tz, w), offsetAt(tz, w + SPAN_MS)])];
  const found = offsets
    .map((o) => w - o)
    .filter((t) => offsetAt(tz, t) === w - t)
    .sort((a, b) => a - b);
  if (found.length > 0) return wildcard ? [...new Set(found)] : [found[0]];
  if (wildcard) return [];
  // In a gap: its offsets before and after bracket it; the change between them ends the gap.
  const from = w - Math.max(...offsets);
  const to = w - Math.min(...offsets);
  return [changeBetween(tz, from, to)];
}

/**
 * Whether a cron expression is a wildcard one in Vixie cron's sense: its minute or hour field
 * starts with `*` (every minute or hour, or a step of them), so it fires as the clock goes rather
 * than at a fixed time of day.
 */
export function isWildcard(cron: string): boolean {
  const fields = cron.trim().split(/\s+/);
  const [minute, hour] = fields.length >= 6 ? fields.slice(1, 3) : fields.slice(0, 2);
  return (minute ?? '').startsWith('*') || (hour ?? '').startsWith('*');
}

/** The most a zone's offset changes at once (historic double summer times were 2 h), with room. */
export const MAX_SHIFT_MS = 3 * HOUR_MS;
