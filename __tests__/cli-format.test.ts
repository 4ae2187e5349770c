/**
 * The CLI's text output: aligned tables that cannot be hijacked by escape sequences in task data,
 * and times relative to the server's clock.
 */
import { cut, duration, fields, firstLine, instant, jsonValue, leaseLeft, relative, table } from '../lib/surfaces/cli/format';

describe('table', () => {
  it('aligns columns, numbers on the right, and trims trailing space', () => {
    const text = table(
      [{ title: 'QUEUE' }, { title: 'READY', right: true }, { title: 'NOTE' }],
      [
        ['emails', '7', ''],
        ['a', '1234', 'x'],
      ],
    );
    expect(text).toBe(['QUEUE   READY  NOTE', 'emails      7', 'a        1234  x', ''].join('\n'));
  });

  it('escapes control and bidi characters visibly, so task data cannot repaint the terminal or reorder a row', () => {
    const text = table([{ title: 'KEY' }, { title: 'N' }], [['a\u001b[2Jb\nc\u202e', '1']]);
    expect(text).toBe('KEY                   N\na\\u001B[2Jb\\nc\\u202E  1\n');
  });
});

describe('fields', () => {
  it('aligns values and keeps a multi-line value under its column', () => {
    expect(
      fields([
        ['hash', 'abc'],
        ['last error', 'boom\n  at x'],
      ]),
    ).toBe('hash        abc\nlast error  boom\n              at x\n');
  });

  it('escapes hidden characters in every line of a value', () => {
    expect(fields([['error', 'a\u2066b\n\u200bc']])).toBe('error  a\\u2066b\n       \\u200Bc\n');
  });
});

describe('times', () => {
  it('gives a duration in its two largest units', () => {
    expect(duration(0)).toBe('0s');
    expect(duration(999)).toBe('0s');
    expect(duration(45_000)).toBe('45s');
    expect(duration(200_000)).toBe('3m 20s');
    expect(duration(180_000)).toBe('3m');
    expect(duration(7_500_000)).toBe('2h 5m');
    expect(duration(3 * 86_400_000 + 4 * 3_600_000 + 59_000)).toBe('3d 4h');
  });

  it('says when an instant is, seen from the server clock', () => {
    expect(relative(10_000, 5_000)).toBe('in 5s');
    expect(relative(0, 180_000)).toBe('3m ago');
    expect(relative(1_000_400, 1_000_000)).toBe('now');
  });

  it('marks a time no Date can hold instead of throwing', () => {
    expect(relative(1e300, 5_000)).toBe('invalid time (1e+300)');
    expect(instant(NaN, 5_000)).toBe('invalid time (NaN)');
    expect(instant(0, 5_000)).toBe('1970-01-01T00:00:00.000Z (5s ago)');
    expect(leaseLeft(-1e300, 5_000)).toBe('invalid time (-1e+300)');
  });

  it('gives the lease time left, or how long ago it lapsed', () => {
    expect(leaseLeft(72_000, 60_000)).toBe('12s');
    expect(leaseLeft(57_000, 60_000)).toBe('expired 3s ago');
    expect(leaseLeft(null, 60_000)).toBe('-');
  });
});

describe('previews', () => {
  it('keeps the first line of an error and cuts long text with an ellipsis', () => {
    expect(firstLine('Error: boom\n    at f (x.js:1:1)')).toBe('Error: boom');
    expect(firstLine('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('cut values', () => {
  it('cuts a text with an ellipsis, never between the halves of an emoji', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdefg', 6)).toBe('abcde…');
    expect(cut('abcd\u{1F600}xyz', 6)).toBe('abcd…');
  });

  it('shows a JSON value on one line, hidden characters escaped, and says how long a cut one is', () => {
    expect(jsonValue({ a: 'x\u202Ey\nz' }, 100)).toBe('{"a":"x\\u202ey\\nz"}');
    expect(jsonValue('q'.repeat(1000), 10)).toBe('"qqqqqqqq… (1,002 characters in all; --json prints it whole)');
  });
});
