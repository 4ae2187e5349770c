/**
 * A schedule declared again (every() or schedule() called anew for the same name) follows its new
 * declaration: the occurrence the old one put is cancelled when the time, data or task template
 * changed, and the new declaration's next occurrence is put; declared the same way, nothing moves.
 * And listSchedules' `next` names a run that will happen: not an occurrence already run early.
 */
import type { Scheduler } from '../lib';
import { eventually, readRecord, serverNow, sleep, useRedis } from './support/harness';

const redis = useRedis();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A daily cron expression (UTC) for the minute `ms` after `now`, and its next occurrence. */
function daily(now: number, ms: number): { cron: string; at: number } {
  const d = new Date(now + ms);
  return { cron: `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`, at: Math.floor((now + ms) / 60_000) * 60_000 };
}

async function pending(s: Scheduler) {
  return (await s.list('delayed')).tasks.map((t) => ({ runAt: t.runAt, data: t.data, name: t.name, level: t.level }));
}

type Declare = (s: Scheduler, cron: string, data: unknown, options?: { taskName?: string; priority?: number }) => Promise<void>;
const declarations: Array<[string, Declare]> = [
  ['every()', (s, cron, data, options) => s.every('k', cron, data as never, options)],
  ['schedule()', (s, cron, data, options) => s.schedule('k', cron, data as never, options)],
];

describe.each(declarations)('a schedule declared again with %s', (_kind, declare) => {
  it('at another time: the old pending occurrence is cancelled, and the new time is put and next', async () => {
    const s = await redis.scheduler();
    const now = await serverNow(await redis.raw());
    const old = daily(now, 2 * HOUR);
    const earlier = daily(now, HOUR);
    await declare(s, old.cron, { v: 'old' });
    expect(await pending(s)).toEqual([{ runAt: old.at, data: { v: 'old' }, name: null, level: 0 }]);
    await declare(s, earlier.cron, { v: 'new' });
    expect(await pending(s)).toEqual([{ runAt: earlier.at, data: { v: 'new' }, name: null, level: 0 }]);
    expect((await s.listSchedules())[0]).toMatchObject({ next: earlier.at, latest: earlier.at, data: { v: 'new' } });
  });

  it('at the same time with new data or a new task template: the pending occurrence carries the new one', async () => {
    const s = await redis.scheduler();
    const t = daily(await serverNow(await redis.raw()), HOUR);
    await declare(s, t.cron, { v: 'old' }, { taskName: 'a', priority: 1 });
    await declare(s, t.cron, { v: 'new' }, { taskName: 'b', priority: 5 });
    expect(await pending(s)).toEqual([{ runAt: t.at, data: { v: 'new' }, name: 'b', level: 5 }]);
    // The same task name: the same task identity, cancelled and put again with the new data.
    await declare(s, t.cron, { v: 'newer' }, { taskName: 'b', priority: 5 });
    expect(await pending(s)).toEqual([{ runAt: t.at, data: { v: 'newer' }, name: 'b', level: 5 }]);
  });

  it('the same way (every replica declaring it at start): its pending occurrence stays as it was put', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const t = daily(await serverNow(raw), HOUR);
    await declare(s, t.cron, { v: 1 }, { taskName: 'a' });
    const [before] = (await s.list('delayed')).tasks;
    const putAt = (await readRecord(raw, s.prefix, 'default', before.hash)).meta.c;
    await sleep(5);
    const other = await redis.scheduler({ prefix: s.prefix });
    await declare(other, t.cron, { v: 1 }, { taskName: 'a' });
    expect((await s.list('delayed')).tasks.map((task) => task.hash)).toEqual([before.hash]);
    expect((await readRecord(raw, s.prefix, 'default', before.hash)).meta.c).toBe(putAt);
  });
});

describe('listSchedules next', () => {
  it.each(declarations)('after %s: an occurrence moved to now and run is not next; the one after it is', async (_kind, declare) => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const t = daily(await serverNow(raw), HOUR);
    await declare(s, t.cron, 'x');
    const [task] = (await s.list('delayed')).tasks;
    await s.reschedule(task.hash, await serverNow(raw));
    const ran: string[] = [];
    const worker = s.work(async (run) => void ran.push(run.hash));
    await eventually(() => ran.length === 1);
    await worker.close();
    expect(ran).toEqual([task.hash]);
    const [info] = await s.listSchedules();
    expect(info).toMatchObject({ latest: t.at, next: t.at + DAY });
  });
});
