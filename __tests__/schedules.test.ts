/**
 * Schedules stored in Redis: schedule() with its task template and bounds, kept going by every
 * work() loop of the queue (each occurrence once across processes), listSchedules' next runs and
 * paused state, pause, resume, run now, and every()'s task template.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { createScheduler, type Task } from '../lib';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDashboard } from '../lib/surfaces/dashboard';
import { cli } from './support/cli';
import { eventually, sleep, uniquePrefix, useRedis } from './support/harness';
import { startRedis } from './support/redis-server';

const redis = useRedis();

const pending = async (s: { stats(o: { queue: string }): Promise<{ ready: number; delayed: number }> }, queue = 'default') => ((st) => st.ready + st.delayed)(await s.stats({ queue }));

describe('schedule', () => {
  it('is kept going by the work() loops of every process, each occurrence once, with its task template', async () => {
    const a = await redis.scheduler();
    const b = await redis.scheduler({ prefix: a.prefix });
    await a.schedule('nightly', 200, { job: 'digest' }, { taskName: 'digest', group: 'reports', priority: 7, timeout: 5000 });
    const ran: Task[] = [];
    const other: Task[] = [];
    const handlers = { digest: async (task: Task) => void ran.push(task), '*': async (task: Task) => void other.push(task) };
    const workers = [a.work(handlers), b.work(handlers)];
    await eventually(() => ran.length >= 8, 15_000);
    await Promise.all(workers.map((w) => w.close()));
    expect(other).toEqual([]);
    const ats = ran.map((t) => t.runAt).sort((x, y) => x - y);
    expect(new Set(ats).size).toBe(ats.length);
    // No occurrence between the first and the last was lost.
    for (let i = 1; i < ats.length; i++) expect(ats[i] - ats[i - 1]).toBe(200);
    for (const task of ran) expect(task).toMatchObject({ name: 'digest', group: 'reports', timeout: 5000, data: { job: 'digest' } });
    const [info] = await a.listSchedules();
    expect(info).toMatchObject({
      name: 'nightly',
      stored: true,
      paused: false,
      every: 200,
      data: { job: 'digest' },
      template: { taskName: 'digest', group: 'reports', priority: 7, timeout: 5000, maxAttempts: 5, unique: 'until-done' },
      startAt: null,
      endAt: null,
      limit: null,
    });
    expect(info.next! % 200).toBe(0);
  });

  it('puts its first occurrences itself, ahead of time, before any worker looks', async () => {
    const s = await redis.scheduler();
    await s.schedule('later', { minutes: 5 }, 'x');
    expect(await pending(s)).toBe(1);
    const [info] = await s.listSchedules();
    expect(info.latest).toBe(info.next);
    expect(info.latest! % 300_000).toBe(0);
    // Stored again (here unchanged): no occurrence is put twice.
    await s.schedule('later', { minutes: 5 }, 'x');
    expect(await pending(s)).toBe(1);
  });

  it('stops after `limit` occurrences, and puts none outside startAt..endAt', async () => {
    const s = await redis.scheduler();
    const now = await s.time();
    await s.schedule('three', 200, 'l', { limit: 3, queue: 'limited' });
    await s.schedule('window', 200, 'w', { startAt: now + 1000, endAt: now + 1600, queue: 'window' });
    const ran: Record<string, number[]> = { limited: [], window: [] };
    const workers = ['limited', 'window'].map((queue) => s.work(async (task: Task) => void ran[queue].push(task.runAt), { queue }));
    await sleep(2500);
    await Promise.all(workers.map((w) => w.close()));
    expect(ran.limited).toHaveLength(3);
    expect(ran.window.length).toBeGreaterThanOrEqual(2);
    for (const at of ran.window) {
      expect(at).toBeGreaterThanOrEqual(now + 1000);
      expect(at).toBeLessThanOrEqual(now + 1600);
    }
    const [limited] = await s.listSchedules({ queue: 'limited' });
    expect(limited).toMatchObject({ limit: 3, next: null });
  });

  it('applies its missed policy to the occurrences due while no worker was up', async () => {
    const s = await redis.scheduler();
    const ahead: Record<string, number> = {};
    for (const missed of ['skip', 'once'] as const) {
      await s.schedule('job', 300, missed, { queue: missed, missed });
      ahead[missed] = (await s.listSchedules({ queue: missed }))[0].latest!;
    }
    // No worker: the occurrences schedule() put (up to 3 s ahead) fall due, then more pass unput.
    await sleep(4500);
    const ran: Record<string, number[]> = { skip: [], once: [] };
    const workers = (['skip', 'once'] as const).map((queue) => s.work(async (task: Task) => void ran[queue].push(task.runAt), { queue }));
    const after = (queue: string) => ran[queue].filter((at) => at > ahead[queue]).sort((x, y) => x - y);
    await eventually(() => after('skip').length >= 1 && after('once').length >= 2, 5000);
    await Promise.all(workers.map((w) => w.close()));
    // What was put ahead ran late; of what was never put, 'skip' runs none and 'once' the latest.
    expect(after('skip')[0] - ahead.skip).toBeGreaterThanOrEqual(900);
    const [latest, next] = after('once');
    expect(latest - ahead.once).toBeGreaterThanOrEqual(600);
    expect(next - latest).toBe(300);
  });

  it('puts what fell due after a worker started and before its first look: late, not missed', async () => {
    const s = await redis.scheduler();
    await s.schedule('job', 300, 'up', { queue: 'up' });
    const ahead = (await s.listSchedules({ queue: 'up' }))[0].latest!;
    await sleep(4500);
    const ran: number[] = [];
    const startedAt = await s.time();
    const worker = s.work(async (task: Task) => void ran.push(task.runAt), { queue: 'up' });
    // A busy start: the worker's first look comes a second after work() returned.
    for (const until = Date.now() + 1000; Date.now() < until;);
    await eventually(() => ran.some((at) => at > startedAt + 1000), 5000);
    await worker.close();
    const upFirst = Math.ceil((startedAt + 20) / 300) * 300;
    const late = [upFirst, upFirst + 300, upFirst + 600].filter((at) => at <= startedAt + 900);
    expect(ran).toEqual(expect.arrayContaining(late));
    // What passed before the worker started stays skipped, the policy being 'skip'.
    expect(ran.filter((at) => at > ahead && at < startedAt - 100)).toEqual([]);
  });
});

describe('pause, resume and run now', () => {
  it('pauses a stored schedule everywhere, cancelling what was put ahead, and resumes from its next time', async () => {
    const s = await redis.scheduler();
    await s.schedule('tick', 200, 't');
    const ran: number[] = [];
    const worker = s.work(async (task: Task) => void ran.push(task.runAt));
    await eventually(() => ran.length >= 2, 5000);
    expect(await s.pauseSchedule('tick')).toBe(true);
    expect(await s.pauseSchedule('tick')).toBe(false);
    const paused = ran.length;
    expect(await s.listSchedules()).toEqual([expect.objectContaining({ name: 'tick', paused: true, next: null })]);
    await sleep(1500);
    // At most one occurrence already leased when the pause came.
    expect(ran.length - paused).toBeLessThanOrEqual(1);
    expect(await pending(s)).toBe(0);
    const resumedAt = await s.time();
    expect(await s.resumeSchedule('tick')).toBe(true);
    expect(await s.resumeSchedule('tick')).toBe(false);
    await eventually(() => ran.filter((at) => at > resumedAt).length >= 2, 5000);
    await worker.close();
    // Nothing of the paused time was brought back as a missed run.
    expect(ran.filter((at) => at > ran[paused] && at <= resumedAt)).toEqual([]);
    expect(await s.pauseSchedule('none')).toBe(false);
  });

  it('pauses an every() schedule too: its loop keeps sleeping and picks up on resume', async () => {
    const s = await redis.scheduler();
    await s.every('tick', 200, 'e', { taskName: 'tick' });
    expect(await s.pauseSchedule('tick')).toBe(true);
    expect(await pending(s)).toBe(0);
    await sleep(500);
    expect(await pending(s)).toBe(0);
    await s.resumeSchedule('tick');
    const ran: Task[] = [];
    const worker = s.work({ tick: async (task: Task) => void ran.push(task) });
    await eventually(() => ran.length >= 2, 5000);
    await worker.close();
    expect(ran[0]).toMatchObject({ name: 'tick', data: 'e' });
    await s.close();
  });

  it('runs a schedule now, paused or not, with its data and template; null for none', async () => {
    const s = await redis.scheduler();
    await s.schedule('report', { hours: 1 }, { r: 1 }, { taskName: 'report', priority: true });
    await s.pauseSchedule('report');
    const put = await s.runScheduleNow('report');
    expect(put).toMatchObject({ added: true, status: 'added' });
    const ran: Task[] = [];
    const worker = s.work({ report: async (task: Task) => void ran.push(task) });
    await eventually(() => ran.length === 1, 5000);
    await worker.close();
    expect(ran[0]).toMatchObject({ hash: put!.hash, name: 'report', data: { r: 1 } });
    expect(await s.runScheduleNow('none')).toBeNull();
  });

  it('unschedule cancels every occurrence put ahead', async () => {
    const s = await redis.scheduler();
    await s.schedule('tick', 200, 't');
    expect(await pending(s)).toBeGreaterThan(5);
    expect(await s.unschedule('tick')).toBe(true);
    expect(await pending(s)).toBe(0);
  });
});

describe('which schedule put a task', () => {
  it('says it in get(), list() and the done history: schedule(), every() and run now; null for a plain put', async () => {
    const s = await redis.scheduler();
    await s.schedule('hourly', { hours: 1 }, { h: 1 }, { queue: 'sched' });
    await s.every('ticker', { hours: 1 }, { t: 1 }, { queue: 'sched' });
    const now = await s.runScheduleNow('hourly', { queue: 'sched' });
    const plain = await s.put({ p: 1 }, { queue: 'sched' });
    await eventually(async () => (await s.list('delayed', { queue: 'sched' })).total === 2);
    const delayed = await s.list('delayed', { queue: 'sched' });
    expect(delayed.tasks.map((t) => [t.data, t.schedule]).sort()).toEqual([
      [{ h: 1 }, 'hourly'],
      [{ t: 1 }, 'ticker'],
    ]);
    expect((await s.get(now!.hash, { queue: 'sched' }))!.schedule).toBe('hourly');
    expect((await s.get(plain.hash, { queue: 'sched' }))!.schedule).toBeNull();
    expect((await s.list('ready', { queue: 'sched', preview: 100 })).tasks.map((t) => t.schedule).sort()).toEqual(['hourly', null]);
    // Done, in the history: it still says which.
    const raw = await redis.raw();
    for (let task = await s.claim({ queue: 'sched' }); task; task = await s.claim({ queue: 'sched' })) await s.ack(task);
    expect((await s.list('done', { queue: 'sched' })).tasks.map((t) => t.schedule).sort()).toEqual(['hourly', null]);
    // Stored only for a schedule's task: a plain put's record has no `sc`.
    expect(await raw.hGet(`${s.prefix}:{sched}:history`, plain.hash)).not.toContain('"sc"');
    await s.close();
  });
});

describe("a schedule's keep", () => {
  it("gives each occurrence the template's keep (put's keep), for schedule() and every()", async () => {
    const s = await redis.scheduler();
    await s.schedule('quiet', { hours: 1 }, 'q', { queue: 'kq', keep: { done: false } });
    await s.every('loud', { hours: 1 }, 'l', { queue: 'kq', keep: { done: { count: 5 } } });
    const listed = await s.list('delayed', { queue: 'kq' });
    expect(listed.tasks.map((t) => [t.data, t.keep]).sort()).toEqual([
      ['l', { done: { count: 5 } }],
      ['q', { done: false }],
    ]);
    expect((await s.listSchedules({ queue: 'kq' })).find((i) => i.name === 'quiet')!.template).toMatchObject({ keep: { done: false } });
    // Run now, done: not kept in the history.
    const now = (await s.runScheduleNow('quiet', { queue: 'kq' }))!;
    expect(await s.ack((await s.claim({ queue: 'kq' }))!)).toBe(true);
    expect(await s.get(now.hash, { queue: 'kq' })).toBeNull();
    await expect(s.schedule('bad', { hours: 1 }, 'b', { keep: { done: { count: -1 } } })).rejects.toMatchObject({ name: 'ValidationError', field: 'options.keep.done.count' });
    await s.close();
  });
});

describe('listSchedules data', () => {
  it('is typed as asked, and null (marked encrypted) for data sealed with a key this scheduler lacks', async () => {
    const key = { id: 'k1', key: randomBytes(32) };
    const sealed = await redis.scheduler({ encryption: { keys: [key] } });
    await sealed.schedule('typed', { hours: 1 }, { report: 'weekly', pages: 3 });
    interface Report {
      report: string;
      pages: number;
    }
    const [info] = await sealed.listSchedules<Report>();
    // Typed: a Report (or null), read without a cast.
    const pages: number | undefined = info.data?.pages;
    expect(pages).toBe(3);
    expect(info.data).toEqual({ report: 'weekly', pages: 3 });
    expect(info.encrypted).toBeUndefined();
    const blind = await redis.scheduler({ prefix: sealed.prefix });
    const [seen] = await blind.listSchedules<Report>();
    expect(seen).toMatchObject({ name: 'typed', data: null, encrypted: true });
    // Plain data that is JSON null is not "encrypted".
    await blind.schedule('nothing', { hours: 1 }, null);
    expect((await blind.listSchedules()).find((i) => i.name === 'nothing')).toMatchObject({ data: null });
    expect((await blind.listSchedules()).find((i) => i.name === 'nothing')!.encrypted).toBeUndefined();
  });
});

describe('the look at a queue without schedules', () => {
  it('costs one EXISTS while the queue has none, and a new schedule is read within a look', async () => {
    // A server of its own: its command counts are this test's alone.
    const server = await startRedis();
    const s = await createScheduler({ url: server.url, warnings: { aof: false } });
    const other = await createScheduler({ url: server.url, warnings: { aof: false } });
    const raw = createClient({ url: server.url });
    await raw.connect();
    const calls = async (command: string) =>
      Number(
        /calls=(\d+)/.exec(
          String(await raw.sendCommand(['INFO', 'commandstats']))
            .split('\n')
            .find((l) => l.startsWith(`cmdstat_${command}:`)) ?? '',
        )?.[1] ?? 0,
      );
    try {
      const ran: string[] = [];
      const worker = s.work(async (task) => void ran.push(task.data as string));
      await sleep(3200);
      // The first look read the (empty) schedules and their record; the three after it did not.
      expect(await calls('hgetall')).toBeLessThanOrEqual(2);
      expect(await calls('exists')).toBeGreaterThanOrEqual(3);
      const reads = await calls('hgetall');
      await other.schedule('tick', 200, 'tick');
      await eventually(async () => (await calls('hgetall')) > reads + 2, 2500);
      await eventually(() => ran.length >= 2, 5000);
      await worker.close();
    } finally {
      await Promise.all([s.close(), other.close()]);
      await raw.quit();
      await server.stop();
    }
  });
});

describe('from the shell', () => {
  it('pauses, resumes and runs a schedule now; shows paused; exit 1 for none, 2 for a bad name', async () => {
    const s = await redis.scheduler();
    await s.schedule('nightly', { cron: '0 3 * * *' }, { report: 'daily' }, { queue: 'reports', taskName: 'digest' });
    expect(await cli(s.prefix, ['pause-schedule', 'reports', 'nightly'])).toEqual({ code: 0, stdout: "paused 'nightly' in queue 'reports'\n", stderr: '' });
    expect((await s.stats({ queue: 'reports' })).delayed).toBe(0);
    expect((await cli(s.prefix, ['pause-schedule', 'reports', 'nightly'])).stdout).toBe("'nightly' in queue 'reports' was paused already\n");
    expect((await cli(s.prefix, ['schedules', 'reports'])).stdout).toMatch(/^reports +nightly +0 3 \* \* \* \(UTC\) +paused +/m);
    const run = JSON.parse((await cli(s.prefix, ['run-schedule', 'reports', 'nightly', '--json'])).stdout) as { put: { hash: string; status: string } };
    expect(run).toMatchObject({ queue: 'reports', name: 'nightly', put: { status: 'added' } });
    expect(await s.get(run.put.hash, { queue: 'reports' })).toMatchObject({ state: 'ready', data: { report: 'daily' } });
    expect(JSON.parse((await cli(s.prefix, ['resume-schedule', 'reports', 'nightly', '--json'])).stdout)).toEqual({ queue: 'reports', name: 'nightly', paused: false, changed: true });
    expect((await s.listSchedules({ queue: 'reports' }))[0]).toMatchObject({ paused: false, next: expect.any(Number) });
    for (const command of ['pause-schedule', 'resume-schedule', 'run-schedule']) {
      expect(await cli(s.prefix, [command, 'reports', 'weekly'])).toEqual({
        code: 1,
        stdout: '',
        stderr: "docket: no schedule 'weekly' in queue 'reports' ('docket schedules reports' lists them)\n",
      });
      expect((await cli(uniquePrefix(), [command, 'reports', 'a b'], 'redis://127.0.0.1:1')).code).toBe(2);
    }
  });
});

describe('on the dashboard', () => {
  it('shows stored and paused schedules, and runs, pauses and resumes one behind the CSRF token', async () => {
    const s = await redis.scheduler();
    const queue = 'reports';
    await s.schedule('nightly', { cron: '0 3 * * *' }, { report: 'daily' }, { queue });
    const server = createServer(createDashboard(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = await (await fetch(`${base}/schedules?queue=${queue}`)).text();
      expect(page).toContain('<span class="tag">stored</span>');
      for (const action of ['run-schedule', 'pause-schedule']) expect(page).toContain(`data-action="${action}"`);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1];
      const post = (action: string, body: unknown, headers: Record<string, string> = { 'x-csrf-token': csrf }) =>
        fetch(`${base}/api/${action}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      expect((await post('pause-schedule', { queue, name: 'nightly' }, {})).status).toBe(403);
      expect(await (await post('pause-schedule', { queue, name: 'nightly' })).json()).toEqual({ ok: true, queue, changed: true });
      const paused = await (await fetch(`${base}/schedules?queue=${queue}`)).text();
      expect(paused).toContain('data-action="resume-schedule"');
      expect(paused).toContain('<td class="num" data-next><span class="tag">paused</span>');
      const run = await post('run-schedule', { queue, name: 'nightly' });
      expect(await run.json()).toMatchObject({ ok: true, queue, status: 'added' });
      expect((await s.stats({ queue })).ready).toBe(1);
      expect(await (await post('resume-schedule', { queue, name: 'nightly' })).json()).toEqual({ ok: true, queue, changed: true });
      expect((await post('resume-schedule', { queue, name: 'weekly' })).status).toBe(404);
      expect((await post('run-schedule', { queue, name: 'a b' })).status).toBe(400);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
