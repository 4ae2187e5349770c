/**
 * Schedule records read back from Redis are checked as the ones written are: a record no
 * schedule() or every() would write is reported (an UnreadableRecordError naming the schedule, in
 * the scheduler's log) and left out, and the queue's other schedules, its workers, `docket
 * schedules` and the dashboard's Schedules page go on.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { queueKeys } from '../lib/domain/keys';
import { createDashboard } from '../lib/surfaces/dashboard';
import { forkChild } from './support/children';
import { cli } from './support/cli';
import { eventually, testUrl, useRedis } from './support/harness';

const redis = useRedis();

/** Records no schedule() or every() writes, by the schedule's name. */
const BAD: Record<string, string> = {
  'not-json': '{"every":',
  'no-object': '[]',
  'json-null': 'null',
  'data-not-text': '{"every":1000,"data":{"a":1},"stored":true}',
  'huge-catch-up': '{"every":1000,"data":"1","stored":true,"missed":"catch-up","catchUpLimit":100000000}',
  'no-schedule': '{"data":"1","stored":true}',
  'bad-cron': '{"cron":"61 * * * *","tz":"UTC","data":"1","stored":true}',
};

async function withBadRecords(queue: string) {
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const s = await redis.scheduler({ logger: { info() {}, warn: (fields: Record<string, unknown>, message: string) => void warnings.push({ fields, message }) } });
  await s.schedule('good', { cron: '0 3 * * *' }, { report: 'daily' }, { queue });
  const raw = await redis.raw();
  const keys = queueKeys(s.prefix, queue);
  for (const [name, record] of Object.entries(BAD)) await raw.hSet(keys.schedules, name, record);
  // The latest put at the epoch: a catch-up limit of 1e8 would have walked every second since.
  await raw.hSet(keys.occurred, 'huge-catch-up', '0');
  // A good definition whose latest occurrence put is no time.
  await raw.hSet(keys.schedules, 'bad-latest', '{"every":60000,"data":"1","stored":true}');
  await raw.hSet(keys.occurred, 'bad-latest', 'soon');
  return { s, warnings };
}

describe('a schedule record no schedule() would write', () => {
  it('is reported by listSchedules() as an UnreadableRecordError naming it, and left out; the others are listed', async () => {
    const { s, warnings } = await withBadRecords('reports');
    const list = await s.listSchedules({ queue: 'reports' });
    expect(list.map((info) => info.name)).toEqual(['good']);
    expect(warnings.map((w) => w.fields.schedule).sort()).toEqual([...Object.keys(BAD), 'bad-latest'].sort());
    for (const { fields } of warnings)
      expect(fields).toMatchObject({
        queue: 'reports',
        err: { name: 'UnreadableRecordError', code: 'ERR_UNREADABLE_RECORD', message: expect.stringContaining(`schedule ${String(fields.schedule)} in Redis is unreadable`) },
      });
    expect(warnings.find((w) => w.fields.schedule === 'bad-latest')?.fields.err).toMatchObject({ message: expect.stringContaining('the latest occurrence of schedule bad-latest') });
    expect(warnings.find((w) => w.fields.schedule === 'huge-catch-up')?.fields.err).toMatchObject({ message: expect.stringContaining('definition.catchUpLimit') });
  });

  it('leaves `docket schedules` and the dashboard page working, with the others', async () => {
    const { s } = await withBadRecords('reports');
    const shown = await cli(s.prefix, ['schedules', 'reports', '--json']);
    expect(shown.code).toBe(0);
    expect((JSON.parse(shown.stdout) as { schedules: Array<{ name: string }> }).schedules.map((r) => r.name)).toEqual(['good']);
    expect((await cli(s.prefix, ['schedules'])).code).toBe(0);
    const server = createServer(createDashboard(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const page = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/schedules?queue=reports`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('good');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("does not hold up a worker of its queue: the queue's tasks run", async () => {
    const { s } = await withBadRecords('default');
    const { child, out } = forkChild('work-child', [testUrl(), s.prefix]);
    try {
      await eventually(() => out().includes('ready'), 15_000);
      // Its first look at the stored schedules comes at once; a hang there stops every task.
      await s.put({ plain: true });
      await eventually(() => out().includes('ran {"plain":true}'), 10_000);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
