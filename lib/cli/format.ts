/**
 * How the CLI shows things to a person: aligned tables, times relative to the Redis server's
 * clock, and one-line previews of payloads and errors. Everything here is pure text; --json
 * output bypasses it.
 */

/** A table column: its heading, and whether its cells line up on the right (numbers). */
export interface Column {
  title: string;
  right?: boolean;
}

/** Shown in a cell that has no value, so columns never collapse. */
export const NONE = '-';

/**
 * Rows under their headings, each column as wide as its widest cell, two spaces apart. Cells are
 * made printable first: a task's key or error may hold escape sequences that would repaint the
 * operator's terminal.
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
  const value = (text: string) => printable(text, true).split('\n').join(`\n${indent}`);
  return pairs.map(([label, text]) => `${label.padEnd(width)}  ${value(text)}`).join('\n') + '\n';
}

/** Control characters shown as `?`, newlines too unless `keepNewlines`. */
export function printable(text: string, keepNewlines = false): string {
  return text.replace(keepNewlines ? /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g : /[\u0000-\u001f\u007f-\u009f]/g, '?');
}

/** The first line of `text`, cut to `max` characters with an ellipsis. */
export function firstLine(text: string, max = 60): string {
  const line = text.split('\n', 1)[0].trimEnd();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A payload as compact one-line JSON, cut to `max` characters. */
export function preview(data: unknown, max = 40): string {
  return firstLine(JSON.stringify(data) ?? 'undefined', max);
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
 * a second. Judged against the server's clock, not this machine's, which may be off.
 */
export function relative(at: number, now: number): string {
  const diff = at - now;
  if (Math.abs(diff) < 1000) return 'now';
  return diff > 0 ? `in ${duration(diff)}` : `${duration(diff)} ago`;
}

/** An instant as ISO 8601 UTC followed by its relative form: `2030-01-01T00:00:00.000Z (in 5s)`. */
export function instant(at: number, now: number): string {
  return `${new Date(at).toISOString()} (${relative(at, now)})`;
}

/** How long an active task's lease has left: `12s`, or `expired 3s ago` for a lapsed one. */
export function leaseLeft(until: number | null, now: number): string {
  if (until === null) return NONE;
  return until >= now ? duration(until - now) : `expired ${duration(now - until)} ago`;
}
