/**
 * `docket limits` and `docket limit` (lib/surfaces/cli/limits.ts, limit-flags.ts), run in-process through
 * main() against the test Redis: what they show next to what the scheduler reads, what they
 * write, and bad values refused before anything connects.
 */
import { cli } from './support/cli';
import { uniquePrefix, useRedis } from './support/harness';

const redis = useRedis();

type Scheduler = Awaited<ReturnType<typeof redis.scheduler>>;

/** Everything the scheduler reads of a queue's limits. */
async function limitsOf(s: Scheduler, queue: string) {
  const [concurrency, rates, groups] = await Promise.all([s.concurrencyLimit({ queue }), s.rateLimits({ queue }), s.groupLimits({ queue })]);
  return { concurrency, rates, groups };
}

describe('limits', () => {
  it('shows a queue with no limits, and notes a queue no task was put on', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const shown = await cli(s.prefix, ['limits', 'q']);
    expect(shown).toEqual({
      code: 0,
      stdout: 'queue        q\nconcurrency  no limit (0 active)\nrate         no limit\nheld         no\ngroup limit  no limit\ngroup rate   no limit\n',
      stderr: '',
    });
    expect((await cli(s.prefix, ['limits', 'qq'])).stdout).toContain(`note: no task has been put on queue 'qq' under prefix '${s.prefix}'`);
  });

  it('shows what the scheduler set, with active tasks and a table of groups, and JSON equal to its reads', async () => {
    const s = await redis.scheduler();
    const queue = 'api';
    await s.limitConcurrency(5, { queue });
    await s.limitRate({ max: 100, per: { minutes: 1 }, queue });
    await s.limitGroups(2, { queue });
    await s.limitGroups(10, { queue, group: 'big' });
    await s.put('a', { queue, group: 'small' });
    await s.put('b', { queue, group: 'big' });
    await s.claim({ queue });
    await s.claim({ queue });
    const until = await s.backoffQueue(queue, 30_000);

    const { code, stdout } = await cli(s.prefix, ['limits', queue]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^concurrency {2}5 at once \(2 active\)$/m);
    expect(stdout).toMatch(/^rate {9}100 per 1m$/m);
    expect(stdout).toMatch(new RegExp(`^held {9}until ${new Date(until).toISOString().replace(/\./g, '\\.')} \\(in (29|30)s\\)$`, 'm'));
    expect(stdout).toMatch(/^group limit {2}2 at once per group$/m);
    expect(stdout).toMatch(/^group rate {3}no limit$/m);
    expect(stdout).toContain('\nGROUP        LIMIT  ACTIVE  RATE\nbig             10       1  -\nsmall  2 (default)       1  -\n');

    const doc = JSON.parse((await cli(s.prefix, ['limits', queue, '--json'])).stdout) as Record<string, unknown>;
    const read = await limitsOf(s, queue);
    expect(doc).toEqual({
      queue,
      now: expect.any(Number),
      concurrency: read.concurrency,
      rate: read.rates.queue,
      groupRate: null,
      groupRates: {},
      heldUntil: read.rates.heldUntil,
      groups: read.groups,
    });
    expect(doc.heldUntil).toBe(until);
  });

  it('shows the rate of each group and the groups with a rate of their own, in the table and the JSON', async () => {
    const s = await redis.scheduler();
    const queue = 'tenants';
    await s.limitRate({ max: 10, per: { seconds: 1 }, queue, eachGroup: true });
    await s.limitRate({ max: 500, per: { minutes: 1 }, queue, group: 'acme' });
    await s.limitRate({ max: 3, per: 1500, queue, group: 'constructor' });
    await s.limitGroups(4, { queue, group: 'big' });
    await s.put('a', { queue, group: 'small' });
    await s.claim({ queue });

    const { code, stdout } = await cli(s.prefix, ['limits', queue]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^rate {9}no limit$/m);
    expect(stdout).toMatch(/^group rate {3}10 per 1s per group$/m);
    // Every group with a limit or rate of its own, or tasks active; the each-group rate is the default.
    expect(stdout).toContain(
      '\nGROUP        LIMIT  ACTIVE  RATE\n' +
        'acme             -       0  500 per 1m\n' +
        'big              4       0  10 per 1s (default)\n' +
        'constructor      -       0  3 per 1500ms\n' +
        'small            -       1  10 per 1s (default)\n',
    );

    const doc = JSON.parse((await cli(s.prefix, ['limits', queue, '--json'])).stdout) as Record<string, unknown>;
    const { rates } = await limitsOf(s, queue);
    expect(doc).toMatchObject({ rate: null, groupRate: { max: 10, per: 1000 }, groupRates: { acme: { max: 500, per: 60_000 }, constructor: { max: 3, per: 1500 } } });
    expect([doc.groupRate, doc.groupRates]).toEqual([rates.eachGroup, rates.groups]);
  });
});

describe('limit', () => {
  it('sets each limit as the scheduler would, prints what it did, and shows the limits', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const set = await cli(s.prefix, ['limit', 'q', '--concurrency', '5', '--rate', '100/1m', '--group-limit', '2', '--hold', '30s']);
    expect(set.code).toBe(0);
    expect(set.stderr).toBe('');
    expect(set.stdout).toMatch(/^concurrency limit set to 5\nrate limit set to 100 per 1m\ngroup limit set to 2\nclaims held for 30s\n\nqueue {8}q\n/);
    const read = await limitsOf(s, 'q');
    expect(read.concurrency.limit).toBe(5);
    expect(read.rates.queue).toEqual({ max: 100, per: 60_000 });
    expect(read.groups.default).toBe(2);
    expect(read.rates.heldUntil).toBeGreaterThan((await s.time()) + 28_000);

    const own = JSON.parse((await cli(s.prefix, ['limit', 'q', '--group-limit', '10', '--group', 'big', '--json'])).stdout) as Record<string, unknown>;
    expect(own).toMatchObject({ queue: 'q', set: { groupLimit: { limit: 10, group: 'big' } }, groups: { default: 2, groups: { big: 10 } }, concurrency: { limit: 5 } });
    expect((await s.groupLimits({ queue: 'q' })).groups).toEqual({ big: 10 });
  });

  it('removes limits with off, one group at a time', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    await s.limitConcurrency(3, { queue: 'q' });
    await s.limitRate({ max: 5, per: 1000, queue: 'q' });
    await s.limitGroups(2, { queue: 'q' });
    await s.limitGroups(4, { queue: 'q', group: 'g' });
    const off = await cli(s.prefix, ['limit', 'q', '--concurrency', 'off', '--rate', 'off', '--group-limit', 'off', '--group', 'g']);
    expect(off.stdout).toMatch(/^concurrency limit removed\nrate limit removed\nown limit of group 'g' removed\n/);
    const read = await limitsOf(s, 'q');
    expect(read.concurrency.limit).toBeNull();
    expect(read.rates.queue).toBeNull();
    expect(read.groups).toMatchObject({ default: 2, groups: {} });
    await cli(s.prefix, ['limit', 'q', '--group-limit', 'off']);
    expect((await s.groupLimits({ queue: 'q' })).default).toBeNull();
  });

  it('sets and removes the rate of each group, or of one group with --group, through limitRate', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const each = await cli(s.prefix, ['limit', 'q', '--group-rate', '10/1s']);
    expect(each).toMatchObject({ code: 0, stderr: '' });
    expect(each.stdout).toMatch(/^group rate set to 10 per 1s\n\nqueue {8}q\n/);
    expect(each.stdout).toMatch(/^group rate {3}10 per 1s per group$/m);
    expect((await s.rateLimits({ queue: 'q' })).eachGroup).toEqual({ max: 10, per: 1000 });

    const own = await cli(s.prefix, ['limit', 'q', '--group-limit', '3', '--group-rate', '500/1m', '--group', 'acme']);
    expect(own.stdout).toMatch(/^own limit of group 'acme' set to 3\nown rate of group 'acme' set to 500 per 1m\n/);
    expect(own.stdout).toContain('\nGROUP  LIMIT  ACTIVE  RATE\nacme       3       0  500 per 1m\n');
    let read = await limitsOf(s, 'q');
    expect(read.rates).toMatchObject({ queue: null, eachGroup: { max: 10, per: 1000 }, groups: { acme: { max: 500, per: 60_000 } } });
    expect(read.groups.groups).toEqual({ acme: 3 });
    const doc = JSON.parse((await cli(s.prefix, ['limit', 'q', '--group-rate', '2/1500ms', '--group', 'b', '--json'])).stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ set: { groupRate: { rate: { max: 2, per: 1500 }, group: 'b' } }, groupRates: { acme: { max: 500, per: 60_000 }, b: { max: 2, per: 1500 } } });

    const off = await cli(s.prefix, ['limit', 'q', '--group-rate', 'off', '--group', 'acme']);
    expect(off.stdout).toMatch(/^own rate of group 'acme' removed\n/);
    read = await limitsOf(s, 'q');
    expect(read.rates.groups).toEqual({ b: { max: 2, per: 1500 } });
    expect(read.rates.eachGroup).toEqual({ max: 10, per: 1000 });
    expect((await cli(s.prefix, ['limit', 'q', '--group-rate', 'off'])).stdout).toMatch(/^group rate removed\n/);
    expect((await s.rateLimits({ queue: 'q' })).eachGroup).toBeNull();
  });

  it('refuses bad values in one line with exit 2, before connecting, and writes nothing', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    await s.limitConcurrency(3, { queue: 'q' });
    const before = await limitsOf(s, 'q');
    const cases: Array<[string[], string]> = [
      [['--concurrency', '0'], "bad --concurrency '0'"],
      [['--concurrency', '100001'], "bad --concurrency '100001'"],
      [['--concurrency', '2.5'], "bad --concurrency '2.5'"],
      [['--concurrency', 'none'], "bad --concurrency 'none'"],
      [['--rate', '100'], "bad --rate '100'"],
      [['--rate', '100/60'], "bad --rate '100/60'"],
      [['--rate', '0/1m'], "bad --rate '0/1m'"],
      [['--rate', '5/0s'], "bad --rate '5/0s'"],
      [['--rate', '5/31d'], "bad --rate '5/31d'"],
      [['--group-limit=-1'], "bad --group-limit '-1'"],
      [['--group-limit', '2', '--group', 'a b'], "bad --group 'a b'"],
      [['--group', 'g'], '--group names the group whose own --group-limit or --group-rate to set'],
      [['--group-rate', '100'], "bad --group-rate '100'"],
      [['--group-rate', '0/1s', '--group', 'g'], "bad --group-rate '0/1s'"],
      [['--group-rate', '5/1s', '--group', 'a b'], "bad --group 'a b'"],
      [['--hold', '30'], "bad --hold '30'"],
      [['--hold', '0s'], "bad --hold '0s'"],
      [['--concurrency', '5', '--hold', 'soon'], "bad --hold 'soon'"],
      [[], 'limit: nothing to set'],
    ];
    for (const [flags, message] of cases) {
      // An address nothing listens on: exit 2, not 1, shows the CLI never tried to connect.
      const r = await cli(s.prefix, ['limit', 'q', ...flags], 'redis://127.0.0.1:1');
      expect([flags, r.code]).toEqual([flags, 2]);
      expect(r.stderr).toMatch(/^docket: [^\n]+\nRun 'docket help' for usage\.\n$/);
      expect(r.stderr).toContain(message);
    }
    expect((await cli(s.prefix, ['limits', 'q', '--concurrency', '5'])).stderr).toContain('limits does not take --concurrency');
    expect((await cli(s.prefix, ['limit'])).stderr).toContain('limit: missing <queue>');
    expect(await limitsOf(s, 'q')).toEqual(before);
  });

  it('is in the help, with its flags', async () => {
    const help = await cli(uniquePrefix(), ['help']);
    expect(help.stdout).toMatch(/^ {2}limits <queue> +a queue's limits/m);
    expect(help.stdout).toMatch(/^ {2}limit <queue> \[--concurrency n\|off\]/m);
    const own = await cli(uniquePrefix(), ['help', 'limit']);
    for (const flag of ['--concurrency <n|off>', '--rate <max>/<span>', '--group-limit <n|off>', '--group-rate <rate>', '--group <name>', '--hold <span>'])
      expect(own.stdout).toContain(flag);
  });
});
