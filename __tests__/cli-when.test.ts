/**
 * The `<when>` of `docket reschedule`: what is accepted, and that everything else is refused
 * rather than guessed at. Pure parsing; the command itself is tested against Redis in cli.test.ts.
 */
import { UsageError } from '../lib/surfaces/cli/command';
import { parseWhen, resolveWhen } from '../lib/surfaces/cli/when';

describe('parseWhen', () => {
  it('reads now and +Ns/+Nm/+Nh/+Nd as offsets from the server clock', () => {
    expect(parseWhen('now')).toEqual({ fromNow: 0 });
    expect(parseWhen('+30s')).toEqual({ fromNow: 30_000 });
    expect(parseWhen('+5m')).toEqual({ fromNow: 300_000 });
    expect(parseWhen('+2h')).toEqual({ fromNow: 7_200_000 });
    expect(parseWhen('+1d')).toEqual({ fromNow: 86_400_000 });
    expect(resolveWhen(parseWhen('+30s'), 1_000_000)).toBe(1_030_000);
  });

  it('reads epoch milliseconds and ISO 8601 date-times with a zone as instants', () => {
    expect(parseWhen('1893456000000')).toEqual({ at: 1893456000000 });
    expect(parseWhen('2030-01-01T00:00:00Z')).toEqual({ at: Date.UTC(2030, 0, 1) });
    expect(parseWhen('2030-01-01T00:00Z')).toEqual({ at: Date.UTC(2030, 0, 1) });
    expect(parseWhen('2030-01-01T02:30:00.250+02:00')).toEqual({ at: Date.UTC(2030, 0, 1, 0, 30, 0, 250) });
    expect(parseWhen('2030-01-01T00:00:00-0130')).toEqual({ at: Date.UTC(2030, 0, 1, 1, 30) });
    expect(resolveWhen(parseWhen('2030-01-01T00:00:00Z'), 5)).toBe(Date.UTC(2030, 0, 1));
  });

  it.each([
    ['tomorrow', /expected now, \+30s/],
    ['', /expected now/],
    ['30s', /expected now/],
    ['+30', /expected now/],
    ['+1w', /expected now/],
    ['-5m', /expected now/],
    ['+1.5h', /expected now/],
    ['NOW', /expected now/],
    ['30', /before the year 2000/],
    ['1700000000', /before the year 2000/],
    ['99999999999999999999', /before the year 2000/],
    ['2030-01-01T00:00:00', /time zone/],
    ['2030-01-01', /expected now/],
    ['2030-02-30T00:00:00Z', /not a real date/],
    ['2030-13-01T00:00:00Z', /not a real date/],
    ['2030-01-01T24:00:00Z', /not a real date/],
    ['2030-01-01 00:00:00Z', /expected now/],
  ])('refuses %j', (text, message) => {
    expect(() => parseWhen(text)).toThrow(UsageError);
    expect(() => parseWhen(text)).toThrow(message);
  });
});
