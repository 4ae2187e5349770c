/**
 * Showing names, texts and times from Redis to a person: characters that hide or reorder text are
 * escaped visibly, and a time no Date can hold is marked instead of thrown on.
 */
import { isoTime, printable, printableJson, printableLines, validTime } from '../lib/surfaces/printable';

describe('printable', () => {
  it('escapes bidi controls so a name cannot reverse what follows it', () => {
    for (const c of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c']) {
      expect(printable(`a${c}b`)).toBe(`a\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}b`);
    }
    expect(printable('invoice\u202Efdp.exe')).toBe('invoice\\u202Efdp.exe');
  });

  it('escapes zero-width characters, so two names that look the same read differently', () => {
    expect(printable('mail\u200B')).toBe('mail\\u200B');
    expect(printable('\uFEFFmail\u200C\u200D\u2060')).toBe('\\uFEFFmail\\u200C\\u200D\\u2060');
  });

  it('escapes control characters, with the short forms for tab, newline and return', () => {
    expect(printable('a\u001b[2Jb')).toBe('a\\u001B[2Jb');
    expect(printable('a\tb\nc\rd')).toBe('a\\tb\\nc\\rd');
    expect(printable('\u0000\u007f\u0085\u009b')).toBe('\\u0000\\u007F\\u0085\\u009B');
    expect(printable('line\u2028para\u2029')).toBe('line\\u2028para\\u2029');
  });

  it('escapes lone surrogates but keeps paired ones (emoji) and ordinary text as they are', () => {
    expect(printable('k\ud800')).toBe('k\\uD800');
    expect(printable('\udfffk')).toBe('\\uDFFFk');
    expect(printable('ok 🚀 café Ωμέγα 東京')).toBe('ok 🚀 café Ωμέγα 東京');
    expect(printable('tag\u{E0041}')).toBe('tag\\u{E0041}');
  });

  it('keeps newlines in printableLines, for multi-line values', () => {
    expect(printableLines('Error: x\u202E\n    at f')).toBe('Error: x\\u202E\n    at f');
  });

  it('writes JSON whose hidden characters are \\u escapes: the same document, safe on a terminal', () => {
    const value = { queue: 'a\u202Eb', n: 1, s: 'x\u0085\ud800🚀' };
    const text = printableJson(value);
    expect(text).not.toMatch(/[\u202e\u0085]/);
    expect(text).toContain('"a\\u202eb"');
    expect(JSON.parse(text)).toEqual(value);
    expect(printableJson(value, 2)).toBe(JSON.stringify(value, null, 2).replace('\u202e', '\\u202e').replace('\u0085', '\\u0085'));
  });
});

describe('times', () => {
  it('gives ISO 8601 for a time a Date can hold', () => {
    expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(isoTime(8.64e15)).toBe('+275760-09-13T00:00:00.000Z');
    expect(validTime(1_700_000_000_000)).toBe(true);
  });

  it('marks a time no Date can hold instead of throwing', () => {
    expect(isoTime(1e300)).toBe('invalid time (1e+300)');
    expect(isoTime(-8.64e15 - 1)).toBe('invalid time (-8640000000000001)');
    expect(isoTime(NaN)).toBe('invalid time (NaN)');
    expect(isoTime(Infinity)).toBe('invalid time (Infinity)');
    expect(isoTime(undefined)).toBe('invalid time (none)');
    expect(isoTime('soon\u202E')).toBe('invalid time ("soon\\u202E")');
    expect(validTime(1e300)).toBe(false);
  });
});
