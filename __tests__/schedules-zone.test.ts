/**
 * Cron schedules across daylight-saving changes: the planner's live path (a look a second, each
 * putting what is due) and its catch-up path (one look after downtime) on a simulated clock, in
 * zones whose changes fall at midnight (America/Santiago, America/Havana) and at other times
 * (America/New_York, Europe/Berlin, Australia/Lord_Howe's half hour). Both follow the one rule
 * docs/guide/delays-and-schedules.md states; no look throws or takes long.
 */
import { Occurrences } from '../lib/features/recurring';
import { plan, type Definition } from '../lib/features/schedules-record';

/** One look's longest time, generous for a loaded machine: cron-parser's loop limit took 145-820 ms a look. */
const LOOK_MS = 60;

function timed<T>(f: () => T): T {
  const start = performance.now();
  const out = f();
  expect(performance.now() - start).toBeLessThan(LOOK_MS);
  return out;
}

/** The occurrences the live path puts in (from, to]: looks a second apart, the clock jumping to a second before the latest put. */
function live(d: Definition, o: Occurrences, from: number, to: number): string[] {
  let latest: number | null = null;
  const put: number[] = [];
  for (let now = from; now <= to; now = Math.max(now + 1000, (latest ?? now) - 1000)) {
    // put.lua skips an occurrence at or before the latest put.
    for (const at of timed(() => plan(d, o, latest, now))) if (latest === null || at > latest) put.push((latest = at));
  }
  return put.filter((at) => at > from && at <= to).map((at) => new Date(at).toISOString());
}

/** The occurrences one look after downtime puts, the latest put being `from`: all of (from, to]. */
function caughtUp(d: Definition, o: Occurrences, from: number, to: number): string[] {
  const due = timed(() => plan({ ...d, missed: 'catch-up', catchUpLimit: 100 }, o, from, to));
  return due.filter((at) => at <= to).map((at) => new Date(at).toISOString());
}

const cases: Array<[zone: string, cron: string, change: string, from: string, to: string, expected: string[]]> = [
  // Midnight spring-forward (00:00 -> 01:00): 00:30 never comes; it runs at 01:00, once.
  ['America/Santiago', '30 0 * * *', 'spring, midnight', '2026-09-04T12:00Z', '2026-09-07T12:00Z', ['2026-09-05T04:30:00.000Z', '2026-09-06T04:00:00.000Z', '2026-09-07T03:30:00.000Z']],
  // Midnight fall-back (24:00 -> 23:00): 23:30 comes twice; it runs at the first.
  [
    'America/Santiago',
    '30 23 * * *',
    'fall, midnight',
    '2026-04-02T12:00Z',
    '2026-04-06T12:00Z',
    ['2026-04-03T02:30:00.000Z', '2026-04-04T02:30:00.000Z', '2026-04-05T02:30:00.000Z', '2026-04-06T03:30:00.000Z'],
  ],
  ['America/Havana', '0 0 * * *', 'spring, midnight', '2026-03-06T12:00Z', '2026-03-09T12:00Z', ['2026-03-07T05:00:00.000Z', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z']],
  ['America/Havana', '0 0 * * *', 'fall, midnight', '2026-10-30T12:00Z', '2026-11-02T12:00Z', ['2026-10-31T04:00:00.000Z', '2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z']],
  // 02:30 is skipped by 02:00 -> 03:00: it runs at 03:00 EDT (07:00Z), not 03:30 and not never.
  ['America/New_York', '30 2 * * *', 'spring, 02:00', '2026-03-06T12:00Z', '2026-03-09T12:00Z', ['2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']],
  // 01:30 comes twice (EDT, then EST): once, at the first.
  ['America/New_York', '30 1 * * *', 'fall, 02:00', '2026-10-30T12:00Z', '2026-11-02T12:00Z', ['2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']],
  // A wildcard expression runs as the clock goes: the repeated hour twice, the skipped one not at all.
  [
    'America/New_York',
    '*/30 * * * *',
    'fall, wildcard',
    '2026-11-01T04:45Z',
    '2026-11-01T07:45Z',
    ['2026-11-01T05:00:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-01T06:00:00.000Z', '2026-11-01T06:30:00.000Z', '2026-11-01T07:00:00.000Z', '2026-11-01T07:30:00.000Z'],
  ],
  [
    'America/New_York',
    '*/30 * * * *',
    'spring, wildcard',
    '2026-03-08T05:45Z',
    '2026-03-08T07:45Z',
    ['2026-03-08T06:00:00.000Z', '2026-03-08T06:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-08T07:30:00.000Z'],
  ],
  ['Europe/Berlin', '30 2 * * *', 'spring, 02:00', '2026-03-27T12:00Z', '2026-03-30T12:00Z', ['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']],
  ['Europe/Berlin', '30 2 * * *', 'fall, 03:00', '2026-10-23T12:00Z', '2026-10-26T12:00Z', ['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']],
  // Half-hour changes: 02:00 -> 02:30 in spring, 02:00 -> 01:30 in autumn.
  ['Australia/Lord_Howe', '15 2 * * *', 'spring, half hour', '2026-10-02T00:00Z', '2026-10-05T00:00Z', ['2026-10-02T15:45:00.000Z', '2026-10-03T15:30:00.000Z', '2026-10-04T15:15:00.000Z']],
  ['Australia/Lord_Howe', '45 1 * * *', 'fall, half hour', '2026-04-03T00:00Z', '2026-04-06T00:00Z', ['2026-04-03T14:45:00.000Z', '2026-04-04T14:45:00.000Z', '2026-04-05T15:15:00.000Z']],
];

describe('a cron schedule across a daylight-saving change', () => {
  it.each(cases)('in %s, %s (%s): the live path and the catch-up path put the same runs, by the stated rule', (tz, cron, _change, from, to, expected) => {
    const o = Occurrences.of({ cron, tz });
    const d: Definition = { cron, tz, data: '1', stored: true, missed: 'skip' };
    expect(live(d, o, Date.parse(from), Date.parse(to))).toEqual(expected);
    expect(caughtUp(d, o, Date.parse(from), Date.parse(to))).toEqual(expected);
  });

  it('answers each look at every second of a midnight change without a throw or a long turn', () => {
    // From the change until a day later, cron-parser's loop limit threw at every look.
    const o = Occurrences.of({ cron: '30 0 * * *', tz: 'America/Santiago' });
    const d: Definition = { cron: '30 0 * * *', tz: 'America/Santiago', data: '1', stored: true, missed: 'skip' };
    const change = Date.parse('2026-09-06T04:00Z');
    for (let now = change - 60_000; now < change + 26 * 3600_000; now += 997_000) {
      const due = timed(() => plan(d, o, null, now));
      expect(due).toEqual([o.after(now)]);
      expect(due[0]).toBeGreaterThan(now);
    }
  });
});
