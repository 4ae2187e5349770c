/**
 * The dashboard's pages beside the overview, over HTTP against the test Redis: each state's list
 * a page at a time, its search (a hash exactly, or payload text within a bounded scan), a task's
 * page (whole payload, history, holder, actions), re-drive all, the schedules with their next run,
 * the live workers with what each holds, the groups with their parked tasks, the 401 page's token
 * field, and times in one zone. Bad query parameters are a 400 naming the field, before any read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Scheduler } from '../lib';
import { createDashboard } from '../lib/surfaces/dashboard';
import type { DashboardOptions } from '../lib/types/dashboard';
import type { ListPage } from '../lib/surfaces/dashboard/lists';
import { SEARCH_SCAN } from '../lib/surfaces/dashboard/lists';
import { eventually, useRedis } from './support/harness';

const redis = useRedis();
const servers: Server[] = [];

afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(s: Scheduler, options?: DashboardOptions): Promise<string> {
  const server = createServer(createDashboard(s, options));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function get(url: string, init?: RequestInit): Promise<{ status: number; body: string; res: Response }> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  return { status: res.status, body: await res.text(), res };
}

async function json<T>(url: string): Promise<T> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

function csrfOf(body: string): string {
  const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
  if (!token) throw new Error('no CSRF token on the page');
  return token;
}

function rowHashes(body: string): string[] {
  return [...body.matchAll(/<tr data-hash="([^"]+)"/g)].map((m) => m[1]);
}

describe('list pages', () => {
  it('pages through the ready tasks in claim order, with links to the next and previous pages', async () => {
    const s = await redis.scheduler();
    const queue = 'pages';
    const put = await s.putMany(Array.from({ length: 25 }, (_, i) => ({ data: { n: i }, options: { queue } })));
    const base = await serve(s);
    const order = (await s.list('ready', { queue, limit: 100 })).tasks.map((t) => t.hash);
    expect(order).toHaveLength(25);
    expect(new Set(order)).toEqual(new Set(put.map((p) => p.hash)));

    const first = await get(`${base}/tasks?queue=${queue}&state=ready&limit=10`);
    expect(first.status).toBe(200);
    expect(rowHashes(first.body)).toEqual(order.slice(0, 10));
    expect(first.body).toContain('1–10 of 25');
    expect(first.body).toContain(`rel="next" href="/tasks?queue=${queue}&amp;state=ready&amp;offset=10&amp;limit=10"`);
    expect(first.body).not.toContain('rel="prev"');
    const last = await get(`${base}/tasks?queue=${queue}&state=ready&offset=20&limit=10`);
    expect(rowHashes(last.body)).toEqual(order.slice(20));
    expect(last.body).toContain('rel="prev"');
    expect(last.body).not.toContain('rel="next"');
    // Each row links to the task's page.
    expect(first.body).toContain(`href="/task?queue=${queue}&amp;hash=${order[0]}"`);

    const page = await json<ListPage>(`${base}/api/tasks?queue=${queue}&state=ready&offset=5&limit=5`);
    expect(page).toMatchObject({ queue, state: 'ready', offset: 5, limit: 5, total: 25, inState: 25, search: null });
    expect(page.tasks.map((t) => t.hash)).toEqual(order.slice(5, 10));
  });

  it('lists every state with its own column, and the dead list with re-drive all', async () => {
    const s = await redis.scheduler();
    const queue = 'states';
    await s.put({ job: 'held' }, { queue });
    const held = (await s.claim({ queue, lease: 60_000 }))!;
    const dead = (await s.put({ job: 'dead' }, { queue, maxAttempts: 1 })).hash;
    await s.fail((await s.claim({ queue }))!, { error: new Error('boom <b>') });
    await s.put({ job: 'later' }, { queue, delay: 60_000 });
    await s.put({ job: 'waits' }, { queue, after: [held.hash] });
    const base = await serve(s);
    const active = await get(`${base}/tasks?queue=${queue}&state=active`);
    expect(active.body).toMatch(new RegExp(`data-hash="${held.hash}">[\\s\\S]*?<td class="worker"><code>[^<]+:\\d+:[0-9a-f]+</code>`));
    const deadPage = await get(`${base}/tasks?queue=${queue}&state=dead`);
    expect(rowHashes(deadPage.body)).toEqual([dead]);
    expect(deadPage.body).toContain('Error: boom &lt;b&gt;');
    expect(deadPage.body).toContain('data-action="redrive-all"');
    for (const state of ['delayed', 'waiting']) expect(rowHashes((await get(`${base}/tasks?queue=${queue}&state=${state}`)).body)).toHaveLength(1);
    // Every view of the queue is one tab away, and the page says which zone its times are in.
    for (const tab of ['overview', 'ready', 'delayed', 'waiting', 'active', 'dead', 'schedules', 'workers', 'groups']) expect(deadPage.body).toContain(`data-tab="${tab}"`);
    expect(deadPage.body).toContain('aria-current="page" class="on">Dead<');
    expect(deadPage.body).toMatch(/times in UTC · read at <time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/time>/);
  });

  it('answers bad paging or search parameters with 400 naming the field, on the page and the API', async () => {
    const s = await redis.scheduler();
    await s.put({ n: 1 }, { queue: 'params' });
    const base = await serve(s);
    const cases: Array<[string, string]> = [
      ['queue=params&state=ready&offset=-1', 'offset'],
      ['queue=params&state=ready&offset=1e3', 'offset'],
      ['queue=params&state=ready&offset=1000000001', 'offset'],
      ['queue=params&state=ready&limit=0', 'limit'],
      ['queue=params&state=ready&limit=101', 'limit'],
      ['queue=params&state=ready&limit=ten', 'limit'],
      ['queue=params&state=bogus', 'state'],
      ['queue=params', 'state'],
      [`queue=params&state=ready&q=${'x'.repeat(1025)}`, 'q'],
      ['state=ready&queue=a%20b', 'queue'],
    ];
    for (const [query, field] of cases) {
      const res = await fetch(`${base}/api/tasks?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(((await res.json()) as { error: { code: string; field: string } }).error).toMatchObject({ code: 'ERR_VALIDATION', field });
      const page = await get(`${base}/tasks?${query}`);
      expect([query, page.status]).toEqual([query, 400]);
      expect(page.body).toContain('Request refused (400)');
    }
    for (const path of ['/api/task-page?queue=params', '/task?queue=params&hash=a%20b', '/workers?queue=a%20b', '/schedules?queue=%7B', '/groups?queue=a*']) {
      expect([path, (await fetch(`${base}${path}`)).status]).toEqual([path, 400]);
    }
    expect((await fetch(`${base}/api/tasks?queue=params&state=ready`, { method: 'POST' })).status).toBe(405);
  });

  it('finds a task by its exact hash, or by text in its payload within a bounded scan, and says how much it read', async () => {
    const s = await redis.scheduler();
    const queue = 'search';
    const items = Array.from({ length: SEARCH_SCAN + 20 }, (_, i) => ({ data: { order: `ORD-${String(i).padStart(5, '0')}`, kind: i % 500 === 7 ? 'Refund' : 'sale' }, options: { queue } }));
    const put = await s.putMany(items);
    const base = await serve(s);
    const order = (await s.list('ready', { queue, limit: 1000, offset: SEARCH_SCAN })).tasks;
    const beyond = order[order.length - 1];

    const byText = await json<ListPage>(`${base}/api/tasks?queue=${queue}&state=ready&q=refund&limit=100`);
    // Tasks 7, 507, 1007, 1507 are within the scan; 2007 may be past it, and is then not found.
    const head = [...(await s.list('ready', { queue, limit: 1000, preview: 64 })).tasks, ...(await s.list('ready', { queue, offset: 1000, limit: 1000, preview: 64 })).tasks];
    const expected = head.filter((t) => t.preview.includes('Refund')).map((t) => t.hash);
    expect(expected).toHaveLength(4); // 7, 507, 1007, 1507: 2007 lies past the scan
    expect(byText.tasks.map((t) => t.hash)).toEqual(expected);
    expect(byText.search).toMatchObject({ q: 'refund', byHash: false, scanned: SEARCH_SCAN });
    expect(byText).toMatchObject({ total: expected.length, inState: SEARCH_SCAN + 20 });
    const page = await get(`${base}/tasks?queue=${queue}&state=ready&q=refund`);
    expect(page.body).toContain(`searching the payloads (their first 4 KiB each) and names of the first 2,000 of 2,020 ready tasks`);

    // A hash is found wherever it is in the list, past the scan too.
    const byHash = await json<ListPage>(`${base}/api/tasks?queue=${queue}&state=ready&q=${encodeURIComponent(beyond.hash)}`);
    expect(byHash.tasks.map((t) => t.hash)).toEqual([beyond.hash]);
    expect(byHash.search?.byHash).toBe(true);
    // In another state's list it is not.
    expect((await json<ListPage>(`${base}/api/tasks?queue=${queue}&state=dead&q=${encodeURIComponent(put[0].hash)}`)).total).toBe(0);
    const none = await get(`${base}/tasks?queue=${queue}&state=ready&q=${encodeURIComponent('<nothing like this>')}`);
    expect(none.body).toContain('Nothing found.');
    expect(none.body).toContain('value="&lt;nothing like this&gt;"');
  });
});

describe('task page', () => {
  it('shows the whole payload, the failed attempts with their errors, and the actions a dead task has', async () => {
    const s = await redis.scheduler();
    const queue = 'page';
    const long = 'x'.repeat(5000);
    const { hash } = await s.put({ body: long, note: '<script>alert(1)</script>' }, { queue, maxAttempts: 2 });
    await s.fail((await s.claim({ queue }))!, { error: new Error('first <failure>'), retryIn: 0 });
    await s.fail((await s.claim({ queue }))!, { error: new Error('second failure') });
    const base = await serve(s);
    const { status, body } = await get(`${base}/task?queue=${queue}&hash=${hash}`);
    expect(status).toBe(200);
    expect(body).toContain(long);
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).not.toContain('<script>alert(1)');
    const history = /<table class="history">([\s\S]*?)<\/table>/.exec(body)?.[1] ?? '';
    // Newest first: the last attempt's death (with its error), the first attempt's failure.
    expect([...history.matchAll(/<tr data-event="(\w+)">/g)].map((m) => m[1])).toEqual(['dead', 'failed']);
    expect(history).toContain('first &lt;failure&gt;');
    expect(history).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    for (const action of ['redrive', 'reschedule', 'cancel']) expect(body).toContain(`data-action="${action}"`);
    expect(body).toMatch(/<dt>attempts<\/dt><dd>2 of 2<\/dd>/);
  });

  it('shows an active task’s holder and lease and offers only a cancel of the running task; an unknown hash says so', async () => {
    const s = await redis.scheduler();
    const queue = 'holder';
    const { hash } = await s.put({ job: 1 }, { queue });
    const held = (await s.claim({ queue, lease: 60_000 }))!;
    const base = await serve(s);
    const { body } = await get(`${base}/task?queue=${queue}&hash=${hash}`);
    expect(body).toContain('<dt>held by</dt>');
    expect(body).toMatch(/<dt>lease until<\/dt><dd><time [^>]+>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/time>/);
    // The one action for a running task: cancel it (its worker aborts its handler at its next beat).
    expect(body).toContain('data-action="cancel"');
    expect(body).toContain('<input type="hidden" name="running" value="1">');
    expect(held.hash).toBe(hash);
    const unknown = await get(`${base}/task?queue=${queue}&hash=nosuchhash`);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toContain('data-found="none"');
  });
});

describe('re-drive all', () => {
  it('sends every dead task back to ready behind the CSRF token, and refuses an unknown queue', async () => {
    const s = await redis.scheduler();
    const queue = 'redrive';
    for (const n of [1, 2, 3]) {
      await s.put({ n }, { queue, maxAttempts: 1 });
      await s.fail((await s.claim({ queue }))!, { error: 'no' });
    }
    const base = await serve(s);
    const page = await get(`${base}/tasks?queue=${queue}&state=dead`);
    const post = (body: unknown, headers: Record<string, string>) =>
      fetch(`${base}/api/redrive-all`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    expect((await post({ queue }, {})).status).toBe(403);
    expect((await s.stats({ queue })).dead).toBe(3);
    const csrf = { 'x-csrf-token': csrfOf(page.body) };
    expect((await post({ queue: 'nosuchqueue' }, csrf)).status).toBe(404);
    expect((await post({ queue, extra: 1 }, csrf)).status).toBe(400);
    const res = await post({ queue }, csrf);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, queue, redriven: 3 });
    expect(await s.stats({ queue })).toMatchObject({ dead: 0, ready: 3 });
  });
});

describe('schedules, workers and groups', () => {
  it('lists the schedules with their next run, in UTC', async () => {
    const s = await redis.scheduler();
    const queue = 'sched';
    await s.every('nightly', { cron: '0 3 * * *', tz: 'Europe/Berlin' }, { report: 'nightly' }, { queue });
    await s.every('often', 3_600_000, { ping: true }, { queue });
    const base = await serve(s);
    const { body } = await get(`${base}/schedules?queue=${queue}`);
    expect(body).toContain('<code>0 3 * * * (Europe/Berlin)</code>');
    expect(body).toContain('<code>every 1 h</code>');
    const next = [...body.matchAll(/<td class="num" data-next><time datetime="([^"]+)">/g)].map((m) => Date.parse(m[1]));
    const now = await s.time();
    expect(next).toHaveLength(2);
    for (const at of next) expect(at).toBeGreaterThan(now);
    // The hourly one runs at the next whole hour since the epoch.
    expect(next[1]).toBe((Math.floor(now / 3_600_000) + 1) * 3_600_000);
    const data = await json<{ schedules: Array<{ name: string; next: number; nextPut: boolean }> }>(`${base}/api/schedules?queue=${queue}`);
    expect(data.schedules.map((x) => [x.name, x.nextPut])).toEqual([
      ['nightly', true],
      ['often', true],
    ]);
  });

  it('lists live workers with what each holds, and a direct claim() holder without a heartbeat', async () => {
    const s = await redis.scheduler();
    const queue = 'busy';
    const other = await redis.scheduler({ prefix: s.prefix });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worked = (await s.put({ job: 'worked' }, { queue })).hash;
    const worker = other.work(() => gate, { queue });
    await eventually(async () => (await s.stats({ queue })).active === 1);
    const { hash: direct } = await s.put({ job: 'direct' }, { queue });
    await s.claim({ queue, lease: 60_000 });
    const base = await serve(s);
    const { body } = await get(`${base}/workers?queue=${queue}`);
    const rows = [...body.matchAll(/<tr data-worker="([^"]+)">([\s\S]*?)<\/tr>/g)];
    expect(rows).toHaveLength(2);
    expect(rows[0][2]).toContain('alive');
    expect(rows[0][2]).toContain(`data-task="${worked}"`);
    expect(rows[1][2]).toContain('no heartbeat');
    expect(rows[1][2]).toContain(`data-task="${direct}"`);
    expect(await json(`${base}/api/workers?queue=${queue}`)).toMatchObject({ available: true, view: { workerCount: 1, heldCount: 2 } });
    release();
    await worker.close();
  });

  it('lists the groups with their limits, active tasks and the tasks parked by the limit', async () => {
    const s = await redis.scheduler();
    const queue = 'groups';
    await s.limitGroups(1, { queue });
    await s.limitGroups(3, { queue, group: 'vip' });
    const hashes = [];
    for (const n of [1, 2, 3]) hashes.push((await s.put({ n }, { queue, group: 'acme' })).hash);
    await s.claim({ queue, lease: 60_000 });
    // The next claim reaches acme's other tasks at its limit and parks them.
    expect(await s.claim({ queue, lease: 60_000 })).toBeNull();
    const base = await serve(s);
    const { body } = await get(`${base}/groups?queue=${queue}`);
    const acme = /<tr data-group="acme">([\s\S]*?)<\/tr>/.exec(body)?.[1] ?? '';
    expect(acme).toContain('1 <span class="dim">default</span>');
    expect(acme).toMatch(/data-active>1</);
    expect(acme).toMatch(/data-parked>2</);
    for (const h of hashes.slice(1)) expect(acme).toContain(`data-task="${h}"`);
    expect(body).toMatch(/<tr data-group="vip">[\s\S]*?3 <span class="dim">own<\/span>/);
  });
});

describe('the 401 page', () => {
  it('offers a token field that opens the page asked for, with its query kept', async () => {
    const s = await redis.scheduler();
    await s.put({ n: 1 }, { queue: 'locked' });
    const token = 'correct-horse-battery-staple';
    const base = await serve(s, { token });
    const refused = await get(`${base}/tasks?queue=locked&state=ready`);
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('<form class="find token" method="get" action="/tasks">');
    expect(refused.body).toContain('<input type="hidden" name="queue" value="locked"><input type="hidden" name="state" value="ready">');
    expect(refused.body).toContain('type="password" name="token"');
    const sent = await get(`${base}/tasks?queue=locked&state=ready&token=${token}`);
    expect(sent.status).toBe(303);
    expect(sent.res.headers.get('location')).toBe('/tasks?queue=locked&state=ready');
    const cookie = sent.res.headers.get('set-cookie')!.split(';')[0];
    expect((await get(`${base}/tasks?queue=locked&state=ready`, { headers: { cookie } })).status).toBe(200);
    // The API answers JSON, with no form.
    expect((await get(`${base}/api/tasks?queue=locked&state=ready`)).body).toMatch(/^\{"error"/);
  });
});
