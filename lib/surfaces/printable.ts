/**
 * How the CLI and the dashboard show values read from Redis to a person. Names, keys, errors and
 * payloads are other people's text: a bidi control can make `invoices‮fdp.exe` read as
 * `invoicesexe.pdf`, a zero-width space makes two queues look alike, an escape sequence repaints a
 * terminal. And a record may hold a time no Date can show (a run-at of 1e300), on which
 * `toISOString()` throws. Both views go through this module, so they show a bad value the same
 * way: visibly escaped, or marked, and never by crashing.
 */

/**
 * What is escaped: controls (C0, DEL, C1), format characters (the bidi controls U+061C, U+200E/F,
 * U+202A–U+202E, U+2066–U+2069; the zero-width U+200B–U+200D, U+2060, U+FEFF; soft hyphen and the
 * other invisible ones), the line and paragraph separators, and lone surrogates (with the `u` flag
 * a surrogate range matches only a half without its pair, so emoji are kept).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|[\uD800-\uDFFF]/gu;

const SHORT: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escape(char: string): string {
  const short = SHORT[char];
  if (short !== undefined) return short;
  const code = char.codePointAt(0)!;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/**
 * `text` with every character that hides, reorders or repaints text written as a visible escape:
 * `\u202E`, `\u200B`, `\u001B`, `\n`. Other text, emoji and every script, is kept as it is.
 * Queue and group names cannot hold a backslash, so an escape in a name cannot be mistaken for
 * one typed.
 */
export function printable(text: string): string {
  return text.replace(HIDDEN, escape);
}

/** printable() that keeps line breaks: for values of several lines (a stack trace, pretty JSON). */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/**
 * JSON.stringify with the same characters written as `\uXXXX` escapes: the document means
 * exactly the same to a parser, yet shows nothing hidden when printed on a terminal.
 * JSON.stringify escapes the C0 controls and lone surrogates inside strings already, so a raw
 * newline can only be the indentation's, and is kept.
 */
export function printableJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  return text.replace(HIDDEN, (char) => (char === '\n' ? char : unit(char)));
}

/** JSON escapes UTF-16 code units, so a character beyond U+FFFF is written as its two halves. */
function unit(char: string): string {
  let out = '';
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** The span a Date can hold: ±8.64e15 ms from the epoch (about ±275,760 years). */
const MAX_DATE_MS = 8.64e15;

/** Whether `at` is an epoch-ms time a Date can show. */
export function validTime(at: unknown): at is number {
  return typeof at === 'number' && Math.abs(at) <= MAX_DATE_MS;
}

/**
 * How a time that is not one is shown: `invalid time (1e+300)`, with the stored value, so the
 * operator sees what the record holds.
 */
export function invalidTime(at: unknown): string {
  const value = typeof at === 'number' ? String(at) : at === undefined || at === null ? 'none' : (JSON.stringify(at) ?? String(at));
  return `invalid time (${printable(value.length > 40 ? `${value.slice(0, 39)}…` : value)})`;
}

/** `at` as ISO 8601 UTC, or its invalidTime() mark when no Date can hold it. Never throws. */
export function isoTime(at: unknown): string {
  return validTime(at) ? new Date(at).toISOString() : invalidTime(at);
}
