/**
 * How the CLI shows things to a person: aligned tables, times relative to the Redis server's
 * clock, and one-line previews of payloads and errors. Everything here is pure text; --json
 * output bypasses it. What comes from Redis goes through lib/surfaces/printable.ts, as in the dashboard:
 * hidden characters are escaped and impossible times marked, never thrown on.
 */
import { invalidTime, isoTime, printable, printableJson, printableLines, validTime } from '../printable';

/** A table column: its heading, and whether its cells line up on the right (numbers). */
export interface Column {
  title: string;
  right?: boolean;
}

/** Shown in a cell that has no value, so columns never collapse. */
export const NONE = '-';

/**
 * Rows under their headings, each column as wide as its widest cell, two spaces apart. Cells are
 * made printable first: a name, key or error may hold an escape sequence that would repaint the
 * operator's terminal, or a bidi control that would reorder the row.
 */
export function table(columns: Column[], rows: string[][]): string {
  const cells = rows.map((row) => row.map((cell) => printable(cell)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (columns[i].right ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.title)), ...cells.map(line)].join('\n') + '\n';
}

/** Label/value lines with the values aligned, for one record (inspect). */
export function fields(pairs: Array<[string, string]>): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  const indent = ' '.repeat(width + 2);
  // A multi-line value (a stack trace, pretty JSON) keeps its lines under the value column.
  const value = (text: string) => printableLines(text).split('\n').join(`\n${indent}`);
  return pairs.map(([label, text]) => `${label.padEnd(width)}  ${value(text)}`).join('\n') + '\n';
}

/** The first line of `text`, cut to `max` characters with an ellipsis. */
export function firstLine(text: string, max = 60): string {
  return cut(text.split('\n', 1)[0].trimEnd(), max);
}

/**
 * `text` cut to `max` characters with an ellipsis when longer, never between the halves of an
 * emoji (a lone half would print as an escape).
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1])) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * A JSON value (a task's progress, a handler's result) on one line, hidden characters escaped
 * (lib/surfaces/printable.ts), cut to `max` characters: these are other people's values, and may run to
 * 64 KiB. The cut says how long the whole is; --json prints it whole.
 */
export function jsonValue(value: unknown, max: number): string {
  const text = printableJson(value);
  return text.length <= max ? text : `${cut(text, max)} (${text.length.toLocaleString('en')} characters in all; --json prints it whole)`;
}

const UNITS: Array<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/** A length of time in its two largest units: `45s`, `3m 20s`, `2h 5m`, `3d 4h`; under 1 s, `0s`. */
export function duration(ms: number): string {
  const total = Math.abs(ms);
  const i = UNITS.findIndex(([, size]) => total >= size);
  if (i < 0) return '0s';
  const [unit, size] = UNITS[i];
  const head = `${Math.floor(total / size)}${unit}`;
  const next = UNITS[i + 1];
  const tail = next ? Math.floor((total % size) / next[1]) : 0;
  return tail > 0 ? `${head} ${tail}${next[0]}` : head;
}

/**
 * `at` as seen from `now` (both epoch ms on the Redis clock): `in 5s`, `3m ago`, or `now` within
 * a second. Judged against the server's clock, not this machine's, which may be off. A time no
 * Date can hold (a bad record's run-at of 1e300) is marked: `invalid time (1e+300)`.
 */
export function relative(at: number, now: number): string {
  if (!validTime(at)) return invalidTime(at);
  const diff = at - now;
  if (Math.abs(diff) < 1000) return 'now';
  return diff > 0 ? `in ${duration(diff)}` : `${duration(diff)} ago`;
}

/** An instant as ISO 8601 UTC followed by its relative form: `2030-01-01T00:00:00.000Z (in 5s)`. */
export function instant(at: number, now: number): string {
  return validTime(at) ? `${isoTime(at)} (${relative(at, now)})` : invalidTime(at);
}

/** How long an active task's lease has left: `12s`, or `expired 3s ago` for a lapsed one. */
export function leaseLeft(until: number | null, now: number): string {
  if (until === null) return NONE;
  if (!validTime(until)) return invalidTime(until);
  return until >= now ? duration(until - now) : `expired ${duration(now - until)} ago`;
}

const EXACT_UNITS: Array<[string, number]> = [...UNITS, ['ms', 1]];

/**
 * A span exactly, in the largest unit that divides it, as the CLI's flags take it: `1m`, `90s`,
 * `1500ms`. A rate limit's window is read back this way, so what is printed can be typed again.
 */
export function exactSpan(ms: number): string {
  const [unit, size] = EXACT_UNITS.find(([, size]) => ms % size === 0) ?? ['ms', 1];
  return `${ms / size}${unit}`;
}
