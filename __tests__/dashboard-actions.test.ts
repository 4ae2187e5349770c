/**
 * The dashboard's everyday actions over HTTP, on a real redis-server: priority and run-now as one
 * post each, adding a task (the data checked on the server too: not JSON is a 400 naming `data`,
 * and nothing is written), the add page pre-filled from a task (Duplicate), the chart's 24-hour
 * span, and the new fields of a listed task (its schedule, its progress as a percentage).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Scheduler } from '../lib';
import { createDashboard, type Overview } from '../lib/surfaces/dashboard';
import { percentOf } from '../lib/surfaces/dashboard/api';
import { useRedis } from './support/harness';

const redis = useRedis();
const servers: Server[] = [];

afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(s: Scheduler): Promise<string> {
  const server = createServer(createDashboard(s));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function csrfOf(base: string, path = '/'): Promise<string> {
  const body = await (await fetch(`${base}${path}`)).text();
  const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
  if (!token) throw new Error('no CSRF token on the page');
  return token;
}

async function post(base: string, action: string, body: unknown, csrf: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}/api/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('everyday actions', () => {
  it('changes a pending task’s priority and runs a delayed task now; refuses a bad level, an unknown task and an active one', async () => {
    const s = await redis.scheduler();
    const queue = 'rows';
    const ready = await s.put({ n: 1 }, { queue });
    const later = await s.put({ n: 2 }, { queue, delay: 3_600_000 });
    const base = await serve(s);
    const csrf = await csrfOf(base, `/?queue=${queue}`);
    expect(await post(base, 'priority', { queue, hash: ready.hash, priority: '6' }, csrf)).toEqual({ status: 200, json: { ok: true, queue, hash: ready.hash, level: 6 } });
    expect((await s.get(ready.hash, { queue }))!.level).toBe(6);
    const now = await post(base, 'run-now', { queue, hash: later.hash }, csrf);
    expect(now.status).toBe(200);
    const task = (await s.get(later.hash, { queue }))!;
    expect(task.state).toBe('ready');
    expect(task.runAt).toBe(now.json.runAt);

    const bad = await post(base, 'priority', { queue, hash: ready.hash, priority: 10 }, csrf);
    expect([bad.status, (bad.json.error as { field: string }).field]).toEqual([400, 'priority']);
    const missing = await post(base, 'run-now', { queue, hash: 'nosuchtask' }, csrf);
    expect(missing.status).toBe(404);
    await s.claim({ queue, lease: 60_000 });
    const held = (await s.list('active', { queue })).tasks[0].hash;
    const active = await post(base, 'priority', { queue, hash: held, priority: 1 }, csrf);
    expect(active.status).toBe(409);
    await s.close();
  });

  it('adds a task, checking its JSON data on the server, and answers added or duplicate', async () => {
    const s = await redis.scheduler();
    const queue = 'adds';
    const base = await serve(s);
    // The add page has a form even before any queue exists.
    const csrf = await csrfOf(base, '/add');
    const refused = await post(base, 'add', { queue, data: '{"a": 1,}' }, csrf);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ field: 'data', message: expect.stringContaining('is not valid JSON') });
    expect(await s.queues()).not.toContain(queue);
    const wrongField = await post(base, 'add', { queue, data: '1', colour: 'red' }, csrf);
    expect([wrongField.status, (wrongField.json.error as { field: string }).field]).toEqual([400, 'colour']);

    const body = { queue, name: 'welcome', data: '{"to":"ada@example.com"}', delay: '60000', priority: '3', group: 'acme', maxAttempts: '4' };
    const added = await post(base, 'add', body, csrf);
    expect(added).toMatchObject({ status: 200, json: { ok: true, queue, status: 'added', added: true } });
    const task = (await s.get(added.json.hash as string, { queue }))!;
    expect({ data: task.data, name: task.name, level: task.level, group: task.group, maxAttempts: task.maxAttempts, state: task.state }).toEqual({
      data: { to: 'ada@example.com' },
      name: 'welcome',
      level: 3,
      group: 'acme',
      maxAttempts: 4,
      state: 'delayed',
    });
    expect(await post(base, 'add', body, csrf)).toMatchObject({ status: 200, json: { status: 'duplicate', added: false, hash: added.json.hash } });
    // A plain form post (script off) is answered with the way back to the queue.
    const form = new URLSearchParams({ csrf, queue, data: '[1, 2]' });
    const res = await fetch(`${base}/api/add`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    expect([res.status, res.headers.get('location')]).toEqual([303, `/?queue=${queue}`]);
    expect((await s.stats({ queue })).ready).toBe(1);
    await s.close();
  });

  it('pre-fills the add page from a task (Duplicate), and says so when there is no such task', async () => {
    const s = await redis.scheduler();
    const queue = 'dups';
    const original = await s.put({ order: 'ORD-1', note: '<b>bold</b>' }, { queue, name: 'invoice', priority: 2, group: 'acme', maxAttempts: 9 });
    const base = await serve(s);
    const json = (await (await fetch(`${base}/api/add-page?queue=${queue}&from=${original.hash}`)).json()) as { prefill: Record<string, unknown> };
    expect(json.prefill).toEqual({ data: JSON.stringify({ note: '<b>bold</b>', order: 'ORD-1' }, null, 2), name: 'invoice', priority: 2, group: 'acme', maxAttempts: '9' });
    const page = await (await fetch(`${base}/add?queue=${queue}&from=${original.hash}`)).text();
    expect(page).toContain('&lt;b&gt;bold&lt;/b&gt;');
    expect(page).not.toContain('<b>bold</b>');
    expect(page).toContain('<option value="2" selected>');
    const none = await (await fetch(`${base}/add?queue=${queue}&from=nosuchtask`)).text();
    expect(none).toContain('data-from-missing');
    await s.close();
  });

  it('reads the chart’s 24-hour span from the per-minute counters, and refuses an unknown span', async () => {
    const s = await redis.scheduler();
    const queue = 'spans';
    await s.put({ n: 1 }, { queue });
    await s.ack((await s.claim({ queue }))!);
    const base = await serve(s);
    const day = (await (await fetch(`${base}/api/overview?queue=${queue}&span=24h`)).json()) as Overview;
    expect(day.selected!.span).toBe('24h');
    expect(day.selected!.throughput).toMatchObject({ source: 'minutes', bucket: 60_000 });
    expect(day.selected!.throughput.buckets).toHaveLength(1440);
    expect(day.selected!.throughput.buckets.reduce((n, b) => n + b.completed, 0)).toBe(1);
    const ten = (await (await fetch(`${base}/api/overview?queue=${queue}`)).json()) as Overview;
    expect(ten.selected!.throughput).toMatchObject({ source: 'events', bucket: 10_000 });
    const bad = await fetch(`${base}/api/overview?queue=${queue}&span=1y`);
    expect(bad.status).toBe(400);
    await s.close();
  });

  it('lists a task put by a schedule with its schedule, and a progress a bar can show as a percentage', async () => {
    const s = await redis.scheduler();
    const queue = 'fields';
    await s.schedule('nightly', { hours: 24 }, { report: 1 }, { queue });
    const put = (await s.runScheduleNow('nightly', { queue }))!;
    const base = await serve(s);
    const o = (await (await fetch(`${base}/api/overview?queue=${queue}`)).json()) as Overview;
    expect(o.selected!.ready.tasks.find((t) => t.hash === put.hash)?.schedule).toBe('nightly');
    expect([42, { percent: 7.5 }, { percent: 101 }, -1, '50', { step: 1 }, null].map(percentOf)).toEqual([42, 7.5, null, null, null, null, null]);
    await s.close();
  });
});
