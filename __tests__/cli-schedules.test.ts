/**
 * `docket schedules` and `docket unschedule` (lib/surfaces/cli/schedules.ts), run in-process through main()
 * against the test Redis: what they show next to what listSchedules() reads, what they delete, and
 * bad arguments refused before anything connects.
 */
import { cli } from './support/cli';
import { sleep, uniquePrefix, useRedis } from './support/harness';

const redis = useRedis();

/** The table row whose first two cells are `queue` and `name`, split into cells. */
function row(text: string, queue: string, name: string): string[] {
  const cells = text.split('\n').map((line) => line.split(/\s{2,}/));
  const found = cells.find(([q, n]) => q === queue && n === name);
  if (!found) throw new Error(`no row ${queue} ${name} in:\n${text}`);
  return found;
}

describe('schedules', () => {
  it('lists every schedule of every queue with its next run, and JSON equal to listSchedules() with it', async () => {
    const s = await redis.scheduler();
    await s.every('nightly', { cron: '0 3 * * *', tz: 'Europe/Berlin' }, { report: 'daily' }, { queue: 'reports' });
    await s.every('poll', { minutes: 5 }, { feeds: 'all' }, { queue: 'feeds' });

    const shown = await cli(s.prefix, ['schedules']);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout.split('\n')[0].split(/\s{2,}/)).toEqual(['QUEUE', 'NAME', 'SCHEDULE', 'NEXT RUN', 'DATA']);
    const [nightly] = await s.listSchedules({ queue: 'reports' });
    const [poll] = await s.listSchedules({ queue: 'feeds' });
    expect(row(shown.stdout, 'reports', 'nightly')).toEqual([
      'reports',
      'nightly',
      '0 3 * * * (Europe/Berlin)',
      expect.stringMatching(new RegExp(`^${new Date(nightly.latest!).toISOString().replace(/\./g, '\\.')} \\(in `)),
      '{"report":"daily"}',
    ]);
    expect(row(shown.stdout, 'feeds', 'poll')).toEqual(['feeds', 'poll', 'every 5m', expect.stringMatching(/^\S+Z \(in (\d+m( \d+s)?|\d+s)\)$/), '{"feeds":"all"}']);
    expect(shown.stdout).not.toContain('not put yet');

    const doc = JSON.parse((await cli(s.prefix, ['schedules', '--json'])).stdout) as { now: number; schedules: unknown[] };
    expect(doc).toEqual({
      now: expect.any(Number),
      schedules: [
        { ...poll, next: poll.latest, nextPut: true },
        { ...nightly, next: nightly.latest, nextPut: true },
      ],
    });

    const one = JSON.parse((await cli(s.prefix, ['schedules', 'reports', '--json'])).stdout) as { schedules: Array<{ name: string }> };
    expect(one.schedules.map((r) => r.name)).toEqual(['nightly']);
  });

  it("shows the schedule's next time, marked not put yet, once no process keeps it going", async () => {
    const s = await redis.scheduler();
    const keeper = await redis.scheduler({ prefix: s.prefix });
    await keeper.every('tick', 200, { n: 1 }, { queue: 'ticks' });
    await keeper.close();
    // The last occurrence it put falls due; no process puts the next.
    await sleep(500);
    const doc = JSON.parse((await cli(s.prefix, ['schedules', 'ticks', '--json'])).stdout) as { now: number; schedules: Array<{ latest: number; next: number; nextPut: boolean }> };
    const [tick] = doc.schedules;
    expect(tick.nextPut).toBe(false);
    expect(tick.latest).toBeLessThanOrEqual(doc.now);
    expect(tick.next).toBeGreaterThan(doc.now);
    expect(tick.next % 200).toBe(0);
    const text = (await cli(s.prefix, ['schedules', 'ticks'])).stdout;
    expect(row(text, 'ticks', 'tick')[3]).toMatch(/, not put yet$/);
    expect(text).toMatch(/\nnot put yet: no process has put that occurrence/);
  });

  it('says when there is nothing to list, and notes a queue no task was put on', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'plain' });
    expect(await cli(s.prefix, ['schedules'])).toEqual({ code: 0, stdout: `no schedules under prefix '${s.prefix}'\n`, stderr: '' });
    expect((await cli(s.prefix, ['schedules', 'plain'])).stdout).toBe("no schedules in queue 'plain'\n");
    expect((await cli(s.prefix, ['schedules', 'plian'])).stdout).toBe(`no schedules in queue 'plian'\nnote: no task has been put on queue 'plian' under prefix '${s.prefix}'\n`);
    const empty = uniquePrefix();
    expect((await cli(empty, ['schedules'])).stdout).toMatch(/^no queues under prefix 't-\w+'/);
    expect(JSON.parse((await cli(empty, ['schedules', '--json'])).stdout)).toEqual({ now: expect.any(Number), schedules: [] });
  });
});

describe('unschedule', () => {
  it('deletes a schedule and cancels its pending occurrence; exit 1 for a schedule that is not there', async () => {
    const s = await redis.scheduler();
    await s.every('nightly', { cron: '0 3 * * *' }, { report: 'daily' }, { queue: 'reports' });
    await s.every('weekly', { cron: '0 3 * * 1' }, { report: 'weekly' }, { queue: 'reports' });
    expect((await s.stats({ queue: 'reports' })).delayed).toBe(2);

    expect(await cli(s.prefix, ['unschedule', 'reports', 'nightly'])).toEqual({
      code: 0,
      stdout: "unscheduled 'nightly' in queue 'reports'; its pending occurrence, unless running, is cancelled\n",
      stderr: '',
    });
    expect((await s.listSchedules({ queue: 'reports' })).map((x) => x.name)).toEqual(['weekly']);
    expect((await s.stats({ queue: 'reports' })).delayed).toBe(1);

    expect(JSON.parse((await cli(s.prefix, ['unschedule', 'reports', 'weekly', '--json'])).stdout)).toEqual({ queue: 'reports', name: 'weekly', unscheduled: true });
    expect(await s.listSchedules({ queue: 'reports' })).toEqual([]);

    expect(await cli(s.prefix, ['unschedule', 'reports', 'nightly'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "docket: no schedule 'nightly' in queue 'reports' ('docket schedules reports' lists them)\n",
    });
  });

  it('refuses a bad or missing name with exit 2, before connecting', async () => {
    const cases: Array<[string[], string]> = [
      [['unschedule', 'reports'], 'unschedule: missing <name>'],
      [['unschedule', 'reports', 'a b'], "invalid schedule name 'a b'"],
      [['unschedule', 'a{b', 'nightly'], "invalid queue name 'a{b'"],
      [['unschedule', 'reports', 'nightly', 'extra'], "unschedule: unexpected argument 'extra'"],
      [['schedules', 'a', 'b'], "schedules: unexpected argument 'b'"],
    ];
    for (const [args, message] of cases) {
      // An address nothing listens on: exit 2, not 1, shows the CLI never tried to connect.
      const r = await cli(uniquePrefix(), args, 'redis://127.0.0.1:1');
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toMatch(/^docket: [^\n]+\nRun 'docket help' for usage\.\n$/);
      expect(r.stderr).toContain(message);
    }
  });

  it('is in the help, with schedules', async () => {
    const help = await cli(uniquePrefix(), ['help']);
    expect(help.stdout).toMatch(/^ {2}schedules \[queue\] +the recurring schedules/m);
    expect(help.stdout).toMatch(/^ {2}unschedule <queue> <name> +delete a recurring schedule/m);
    expect((await cli(uniquePrefix(), ['help', 'unschedule'])).stdout).toMatch(/^Usage: docket unschedule <queue> <name>\n/);
  });
});
