/**
 * The dashboard over HTTP, against the real test Redis: what the page and the JSON API show,
 * that every write needs the CSRF token (and writes nothing without it), the actions, the access
 * token and its cookie, mounting under a path, escaping of task data, and the stand-alone server.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { ValidationError, type Scheduler } from '../lib';
import { createDashboard, serveDashboard, type Overview } from '../lib/surfaces/dashboard';
import type { DashboardOptions } from '../lib/types/dashboard';
import { MAX_GROUP_RATES } from '../lib/surfaces/dashboard/limits';
import type { Lookup } from '../lib/surfaces/dashboard/lookup';
import { queueKeys } from '../lib/domain/keys';
import { readRecord, sleep, testUrl, useRedis, writeRecord } from './support/harness';

const redis = useRedis();
const servers: Server[] = [];

afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Serves `listener` on a free loopback port; closed after the file. */
async function listen(listener: Listener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function serve(s: Scheduler, options?: DashboardOptions): Promise<string> {
  return listen(createDashboard(s, options));
}

/** A queue with tasks in every state: 2 ready, 2 delayed, 1 waiting (on the active one), 1 active (held), 2 dead with errors. */
async function seed(s: Scheduler, queue = 'mail') {
  await s.put({ job: 'active' }, { queue });
  const held = (await s.claim({ queue, lease: 60_000 }))!;
  const waiting = (await s.put({ job: 'waiting' }, { queue, after: [held.hash] })).hash;
  const dead: string[] = [];
  for (const n of [1, 2]) {
    const { hash } = await s.put({ job: `dead-${n}` }, { queue, maxAttempts: 1 });
    await s.fail((await s.claim({ queue }))!, { error: new Error(`boom ${n}`) });
    dead.push(hash);
  }
  const ready = [(await s.put({ job: 'ready-1' }, { queue })).hash, (await s.put({ job: 'ready-2' }, { queue })).hash];
  const delayed = [(await s.put({ job: 'soon' }, { queue, delay: 30_000 })).hash, (await s.put({ job: 'later' }, { queue, delay: 300_000 })).hash];
  return { queue, held, dead, ready, delayed, waiting };
}

async function getPage(url: string, init?: RequestInit): Promise<{ status: number; body: string; res: Response }> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  return { status: res.status, body: await res.text(), res };
}

function shownCounts(body: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [, name, value] of body.matchAll(/data-stat="(\w+)">([\d,]+)</g)) counts[name] = Number(value.replace(/,/g, ''));
  return counts;
}

function csrfOf(body: string): string {
  const token = /name="csrf" value="([^"]+)"/.exec(body)?.[1];
  if (!token) throw new Error('no CSRF token on the page');
  return token;
}

/**
 * What a person is shown of a page: its text, and the tooltips and labels in title and
 * aria-label attributes; not the config script, nor the attributes that only carry values.
 */
function visibleText(body: string): string {
  const labels = [...body.matchAll(/ (?:title|aria-label)="([^"]*)"/g)].map((m) => m[1]);
  return [body.replace(/<script[\s\S]*?<\/script>/g, '').replace(/<[^>]*>/g, ' '), ...labels].join('\n');
}

/** A TCP relay to the test Redis that counts the bytes Redis sends back through it. */
async function countingRelay(): Promise<{ url: string; received(): number }> {
  const target = new URL(testUrl());
  let bytes = 0;
  const relay = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    upstream.on('data', (chunk: Buffer) => void (bytes += chunk.length));
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relay.unref();
  servers.push(relay as unknown as Server);
  return { url: `redis://127.0.0.1:${(relay.address() as AddressInfo).port}`, received: () => bytes };
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('page and overview API', () => {
  it('shows every count of the chosen queue as stats() has it', async () => {
    const s = await redis.scheduler();
    const { queue } = await seed(s);
    const base = await serve(s);
    const { status, body, res } = await getPage(`${base}/?queue=${queue}`);
    expect(status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const stats = await s.stats({ queue });
    expect(shownCounts(body)).toEqual({ ready: 2, delayed: 2, waiting: 1, active: 1, dead: 2, expired: 0, deduplicated: 0 });
    expect(shownCounts(body)).toEqual({
      ready: stats.ready,
      delayed: stats.delayed,
      waiting: stats.waiting,
      active: stats.active,
      dead: stats.dead,
      expired: stats.expired,
      deduplicated: stats.deduplicated,
    });
    expect(body).toMatch(/<tr data-queue="mail"[^>]*>.*?<td class="num waiting" data-count="waiting">1<\/td>/s);
    // Every queue in the table, the first one chosen by default.
    await s.put('x', { queue: 'another' });
    const first = await getPage(`${base}/`);
    expect(first.body).toContain('data-queue="another"');
    expect(first.body).toContain('data-queue="mail"');
    expect(first.body).toMatch(/<h1><span class="dim">queue<\/span> another<\/h1>/);
  });

  it('shows the holder and lease of active tasks, dead tasks with errors and buttons, and the delayed timeline', async () => {
    const s = await redis.scheduler();
    const { queue, held, dead, delayed } = await seed(s);
    const { body } = await getPage(`${await serve(s)}/?queue=${queue}`);
    const active = (await s.list('active', { queue })).tasks[0];
    expect(body).toContain(`<code>${active.worker}</code>`);
    expect(body).toMatch(new RegExp(`data-hash="${held.hash}">.*?class="num lease ok" data-lease-left="\\d+"`, 's'));
    expect(body).toContain('Error: boom 1');
    for (const hash of dead) expect(body).toMatch(new RegExp(`name="hash" value="${hash}"><button type="submit" class="btn primary">Re-drive`));
    // Two numbered dots on the timeline, in run-at order.
    expect([...body.matchAll(/<g class="dot-task" data-hash="(\w+)">/g)].map((m) => m[1])).toEqual(delayed);
    expect(body).toMatch(/<svg class="chart" viewBox="0 0 960 210"/);
  });

  it('answers the overview as JSON matching the scheduler, with the page sections on request', async () => {
    const s = await redis.scheduler();
    const { queue, dead } = await seed(s);
    const base = await serve(s);
    const res = await fetch(`${base}/api/overview?queue=${queue}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const o = (await res.json()) as Overview & { fragments?: unknown };
    expect(o.queues).toEqual([{ name: queue, stats: await s.stats({ queue }) }]);
    expect(o.selected?.stats).toEqual(await s.stats({ queue }));
    expect(o.selected?.dead.tasks.map((t) => t.hash)).toEqual([...dead].reverse());
    expect(o.selected?.dead.tasks[0]).toMatchObject({ state: 'dead', preview: '{"job":"dead-2"}', attempts: 1, maxAttempts: 1 });
    expect(o.selected?.dead.tasks[0].lastError).toMatch(/^Error: boom 2/);
    expect(o.selected?.throughput.buckets).toHaveLength(60);
    expect(o.selected?.throughput.buckets.reduce((n, b) => n + b.dead, 0)).toBe(2);
    expect(o.fragments).toBeUndefined();
    const withHtml = (await (await fetch(`${base}/api/overview?queue=${queue}&fragments=1`)).json()) as { fragments: Record<string, string> };
    expect(Object.keys(withHtml.fragments).sort()).toEqual(['active', 'chart', 'dead', 'limits', 'queues', 'ready', 'summary', 'timeline', 'waiting']);
  });

  it('lists waiting tasks with how many of their dependencies are not done, a lookup link, and buttons that act on them', async () => {
    const s = await redis.scheduler();
    const { queue, held, waiting } = await seed(s);
    const other = await s.put({ job: 'other' }, { queue });
    await sleep(5);
    const later = await s.put({ job: 'after both' }, { queue, after: [held.hash, other.hash], delay: 600_000 });
    expect(later.added).toBe(true);
    const base = await serve(s);

    const o = (await (await fetch(`${base}/api/overview?queue=${queue}&fragments=1`)).json()) as Overview & { fragments: Record<string, string> };
    expect(o.selected?.waiting.total).toBe(2);
    expect(o.selected?.waiting.tasks.map((t) => [t.hash, t.state, t.waitingOn, t.preview])).toEqual([
      [waiting, 'waiting', 1, '{"job":"waiting"}'],
      [later.hash, 'waiting', 2, '{"job":"after both"}'],
    ]);
    expect(o.selected?.active.tasks[0].waitingOn).toBeNull();
    const html = o.fragments.waiting;
    expect(html).toContain('<span class="dot waiting"></span>Waiting <span class="count">2</span>');
    expect(html).toMatch(
      new RegExp(
        `data-hash="${later.hash}">.*?<td class="num" data-waiting-on="2"><a href="/\\?queue=${queue}&amp;hash=${later.hash}"[^>]*>2</a></td><td class="num"><time [^>]*>in (9 min 5\\d s|10 min)</time></td>`,
        's',
      ),
    );
    expect(html).toMatch(new RegExp(`data-hash="${waiting}">.*?>at once</time>`, 's'));
    expect(html).toContain(`name="hash" value="${later.hash}"><select name="delay"`);
    // The first paint has the section too, in the page's order.
    const { body } = await getPage(`${base}/?queue=${queue}`);
    const order = [...body.matchAll(/data-fragment="(\w+)">/g)].map((m) => m[1]);
    expect(order).toEqual(['queues', 'summary', 'limits', 'task', 'chart', 'ready', 'timeline', 'waiting', 'active', 'dead']);

    // Its buttons act on it: cancel takes it off every list.
    const csrf = { 'x-csrf-token': csrfOf(body) };
    expect((await post(`${base}/api/cancel`, { queue, hash: later.hash }, csrf)).status).toBe(200);
    expect(await s.get(later.hash, { queue })).toBeNull();
    expect(await s.stats({ queue })).toMatchObject({ waiting: 1 });
    const after = (await (await fetch(`${base}/api/overview?queue=${queue}`)).json()) as Overview;
    expect(after.selected?.waiting).toEqual({ total: 1, tasks: [expect.objectContaining({ hash: waiting, waitingOn: 1 })] });

    // Nothing waiting: said so.
    await s.ack(held);
    const none = (await (await fetch(`${base}/api/overview?queue=${queue}&fragments=1`)).json()) as Overview & { fragments: Record<string, string> };
    expect(none.selected?.waiting).toEqual({ total: 0, tasks: [] });
    expect(none.fragments.waiting).toContain('No task is waiting on another.');
  });

  it('shows an empty state before any queue exists, and refuses a bad queue name with 400', async () => {
    const s = await redis.scheduler();
    const base = await serve(s);
    const { status, body } = await getPage(`${base}/`);
    expect(status).toBe(200);
    expect(body).toContain('No queues yet');
    expect(await (await fetch(`${base}/api/overview`)).json()).toEqual({ now: null, queues: [], selected: null });
    const bad = await fetch(`${base}/api/overview?queue=${encodeURIComponent('a b')}`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('queue');
  });

  it('escapes task data and error text everywhere', async () => {
    const s = await redis.scheduler();
    const evil = '<img src=x onerror=alert(1)>';
    await s.put({ html: evil }, { queue: 'xss' });
    await s.put(`</script><script>alert(2)</script>`, { queue: 'xss', delay: 60_000 });
    await s.put({ n: 1 }, { queue: 'xss', maxAttempts: 1 });
    await s.fail((await s.claim({ queue: 'xss' }))!, { error: new Error(evil) });
    const { hash } = await s.put({ html: evil, live: true }, { queue: 'xss' });
    await s.put({ html: evil, waiting: true }, { queue: 'xss', after: [hash] });
    const named = await s.put({ named: true }, { queue: 'xss', delay: 60_000, name: '<b onmouseover=alert(3)>' });
    const { body } = await getPage(`${await serve(s)}/?queue=xss`);
    // A task's name shows beside its hash, and in its lookup, escaped.
    expect(body).toContain('<span class="tag name">&lt;b onmouseover=alert(3)&gt;</span>');
    const lookup = (await getPage(`${await serve(s)}/?queue=xss&hash=${named.hash}`)).body;
    expect(lookup).toMatch(/<dt>name<\/dt>\s*<dd>&lt;b onmouseover=alert\(3\)&gt;<\/dd>/);
    expect(lookup).not.toContain('<b onmouseover');
    expect(body).toMatch(/<section class="card" data-fragment="waiting">.*&lt;img src=x onerror=alert\(1\)&gt;.*<\/section>/s);
    expect(body).not.toContain('<img src=x');
    expect(body).not.toContain('<script>alert');
    expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(body.match(/<script/g)).toHaveLength(2); // the config and the client, nothing else
  });

  it('sets the security headers, with a fresh nonce for the page’s one style and script', async () => {
    const s = await redis.scheduler();
    const base = await serve(s);
    const a = await getPage(`${base}/`);
    const b = await getPage(`${base}/`);
    const csp = a.res.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(csp).not.toMatch(/https?:|unsafe-inline|\*/);
    expect(a.body).toContain(`<script nonce="${nonce}">`);
    expect(b.res.headers.get('content-security-policy')).not.toContain(nonce);
    for (const res of [a.res, await fetch(`${base}/api/overview`)]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });
});

describe('writes', () => {
  it('refuses a post without the CSRF token, or with a wrong one, with 403 and changes nothing', async () => {
    const s = await redis.scheduler();
    const { queue, dead } = await seed(s);
    const base = await serve(s);
    const before = await s.stats({ queue });
    for (const headers of [{}, { 'x-csrf-token': 'wrong' }] as Array<Record<string, string>>) {
      const res = await post(`${base}/api/redrive`, { queue, hash: dead[0] }, headers);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ERR_CSRF');
    }
    const form = await fetch(`${base}/api/pause`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `queue=${queue}&csrf=nope` });
    expect(form.status).toBe(403);
    expect(await s.stats({ queue })).toEqual(before);
    expect((await s.get(dead[0], { queue }))?.state).toBe('dead');
  });

  it('refuses cross-site posts even with the right token, and GET on an action', async () => {
    const s = await redis.scheduler();
    const { queue, dead } = await seed(s);
    const base = await serve(s);
    const csrf = csrfOf((await getPage(`${base}/?queue=${queue}`)).body);
    for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }] as Array<Record<string, string>>) {
      expect((await post(`${base}/api/redrive`, { queue, hash: dead[0] }, { 'x-csrf-token': csrf, ...headers })).status).toBe(403);
    }
    const get = await fetch(`${base}/api/redrive?queue=${queue}&hash=${dead[0]}`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await s.get(dead[0], { queue }))?.state).toBe('dead');
  });

  it('re-drives, cancels and reschedules tasks with the CSRF token', async () => {
    const s = await redis.scheduler();
    const { queue, dead, delayed } = await seed(s);
    const base = await serve(s);
    const { body } = await getPage(`${base}/?queue=${queue}`);
    const csrf = { 'x-csrf-token': csrfOf(body), origin: base, 'sec-fetch-site': 'same-origin' };

    const redriven = await post(`${base}/api/redrive`, { queue, hash: dead[0] }, csrf);
    expect(redriven.status).toBe(200);
    expect(await redriven.json()).toEqual({ ok: true, queue, hash: dead[0] });
    expect((await s.get(dead[0], { queue }))?.state).toBe('ready');

    expect((await post(`${base}/api/cancel`, { queue, hash: delayed[1] }, csrf)).status).toBe(200);
    expect(await s.get(delayed[1], { queue })).toBeNull();

    const at = Date.now() + 3_600_000;
    const moved = await post(`${base}/api/reschedule`, { queue, hash: delayed[0], at: new Date(at).toISOString() }, csrf);
    expect(await moved.json()).toEqual({ ok: true, queue, hash: delayed[0], runAt: at });
    expect((await s.get(delayed[0], { queue }))?.runAt).toBe(at);

    // A dead task rescheduled is re-driven and moved: delayed, attempts reset.
    const later = await post(`${base}/api/reschedule`, { queue, hash: dead[1], delay: '600000' }, csrf);
    expect(later.status).toBe(200);
    const task = (await s.get(dead[1], { queue }))!;
    expect(task).toMatchObject({ state: 'delayed', attempts: 0 });
    expect(task.runAt).toBe(((await later.json()) as { runAt: number }).runAt);
  });

  it('pauses and resumes a queue, and purges its dead tasks', async () => {
    const s = await redis.scheduler();
    const { queue } = await seed(s);
    const base = await serve(s);
    const csrf = { 'x-csrf-token': csrfOf((await getPage(`${base}/`)).body) };
    expect(await (await post(`${base}/api/pause`, { queue }, csrf)).json()).toEqual({ ok: true, queue, changed: true });
    expect((await s.stats({ queue })).paused).toBe(true);
    const paused = await getPage(`${base}/?queue=${queue}`);
    expect(paused.body).toContain('data-paused="true"');
    expect(paused.body).toMatch(/action="\/api\/resume"/);
    expect(await (await post(`${base}/api/pause`, { queue }, csrf)).json()).toEqual({ ok: true, queue, changed: false });
    expect(await (await post(`${base}/api/resume`, { queue }, csrf)).json()).toEqual({ ok: true, queue, changed: true });
    expect((await s.stats({ queue })).paused).toBe(false);
    expect(await (await post(`${base}/api/purge-dead`, { queue }, csrf)).json()).toEqual({ ok: true, queue, purged: 2 });
    expect((await s.stats({ queue })).dead).toBe(0);
  });

  it('cleans dead and delayed tasks from their sections, behind the token and the CSRF token', async () => {
    const s = await redis.scheduler();
    const { queue, delayed } = await seed(s);
    const served = await serveDashboard(s, { token: 'a-token-of-sixteen-chars' });
    try {
      const base = served.url.replace(/\/\?token=.*$/, '');
      const auth = { authorization: 'Bearer a-token-of-sixteen-chars' };
      const page = await getPage(`${base}/?queue=${queue}`, { headers: auth });
      expect(page.body).toMatch(/data-action="clean"[^>]*data-confirm="Delete these dead tasks/);
      expect(page.body).toContain('<input type="hidden" name="state" value="delayed">');
      const csrf = { ...auth, 'x-csrf-token': csrfOf(page.body) };
      // No token, or no CSRF token: refused, nothing deleted.
      expect((await post(`${base}/api/clean`, { queue, state: 'dead' }, { 'x-csrf-token': csrfOf(page.body) })).status).toBe(401);
      expect((await post(`${base}/api/clean`, { queue, state: 'dead' }, auth)).status).toBe(403);
      const bad = await post(`${base}/api/clean`, { queue, state: 'active' }, csrf);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: { code: 'ERR_VALIDATION', field: 'state' } });
      expect((await s.stats({ queue })).dead).toBe(2);
      // Only the old ones: none died an hour ago.
      expect(await (await post(`${base}/api/clean`, { queue, state: 'dead', olderThan: '3600000' }, csrf)).json()).toEqual({ ok: true, queue, deleted: 0 });
      expect(await (await post(`${base}/api/clean`, { queue, state: 'dead', olderThan: '' }, csrf)).json()).toEqual({ ok: true, queue, deleted: 2 });
      expect(await (await post(`${base}/api/clean`, { queue, state: 'delayed' }, csrf)).json()).toEqual({ ok: true, queue, deleted: 2 });
      expect(await s.get(delayed[0], { queue })).toBeNull();
      expect(await s.stats({ queue })).toMatchObject({ dead: 0, delayed: 0, ready: 2, active: 1 });
    } finally {
      await served.close();
    }
  });

  it('takes plain form posts (script off) and answers them with a redirect to the page', async () => {
    const s = await redis.scheduler();
    const { queue, dead } = await seed(s);
    const base = await serve(s);
    const csrf = csrfOf((await getPage(`${base}/`)).body);
    const res = await fetch(`${base}/api/redrive`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ csrf, queue, hash: dead[0] }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/?queue=${queue}`);
    expect((await s.get(dead[0], { queue }))?.state).toBe('ready');
  });

  it('answers bad input with 400 naming the field, an unknown task with 404, a held one with 409, and writes nothing', async () => {
    const s = await redis.scheduler();
    const { queue, dead, delayed, held } = await seed(s);
    const base = await serve(s);
    const csrf = { 'x-csrf-token': csrfOf((await getPage(`${base}/`)).body) };
    const before = await s.stats({ queue });
    const cases: Array<[string, unknown, number, string]> = [
      ['redrive', { queue: 'a b', hash: dead[0] }, 400, 'queue'],
      ['redrive', { queue, hash: '' }, 400, 'hash'],
      ['redrive', { queue, hash: 'has space' }, 400, 'hash'],
      ['redrive', { queue, hash: dead[0], extra: 1 }, 400, 'extra'],
      ['reschedule', { queue, hash: delayed[0], at: 'tomorrow' }, 400, 'at'],
      ['reschedule', { queue, hash: delayed[0], at: '2030-01-01T12:00:00' }, 400, 'at'],
      ['reschedule', { queue, hash: delayed[0], delay: -5 }, 400, 'delay'],
      ['reschedule', { queue, hash: delayed[0] }, 400, 'at'],
      ['redrive', { queue, hash: 'f'.repeat(32) }, 404, 'hash'],
      ['pause', { queue: 'no-such-queue' }, 404, 'queue'],
      ['redrive', { queue, hash: delayed[0] }, 409, 'hash'],
      ['cancel', { queue, hash: held.hash }, 409, 'hash'],
      ['cancel', { queue, hash: 'f'.repeat(32) }, 404, 'hash'],
      ['reschedule', { queue, hash: held.hash, delay: 1000 }, 409, 'hash'],
      ['reschedule', { queue, hash: 'f'.repeat(32), delay: 1000 }, 404, 'hash'],
    ];
    for (const [action, body, status, field] of cases) {
      const res = await post(`${base}/api/${action}`, body, csrf);
      expect([action, body, res.status]).toEqual([action, body, status]);
      expect(((await res.json()) as { error: { field: string } }).error.field).toBe(field);
    }
    // A refusal says why, as the script answered it: whose lease holds the task, or that there is none.
    const worker = (await s.get(held.hash, { queue }))?.worker;
    expect(worker).toEqual(expect.any(String));
    for (const [action, extra] of [
      ['cancel', {}],
      ['reschedule', { delay: 1000 }],
    ] as const) {
      expect(await (await post(`${base}/api/${action}`, { queue, hash: held.hash, ...extra }, csrf)).json()).toEqual({
        error: { code: 'ERR_CONFLICT', message: `task ${held.hash} is active: its worker (${worker}) holds the lease`, field: 'hash' },
      });
      expect(await (await post(`${base}/api/${action}`, { queue, hash: 'f'.repeat(32), ...extra }, csrf)).json()).toEqual({
        error: { code: 'ERR_NOT_FOUND', message: `no task ${'f'.repeat(32)} in queue ${queue}`, field: 'hash' },
      });
    }
    expect((await post(`${base}/api/cancel`, 'not json', csrf)).status).toBe(400);
    expect((await fetch(`${base}/api/cancel`, { method: 'POST', headers: { 'content-type': 'text/plain', ...csrf }, body: 'x' })).status).toBe(415);
    expect(await s.stats({ queue })).toEqual(before);
    expect(await s.queues()).toEqual([queue]);
  });
});

describe('limits', () => {
  /** The limits as the scheduler reads them. */
  async function limitsOf(s: Scheduler, queue: string) {
    const [concurrency, rates, groups] = await Promise.all([s.concurrencyLimit({ queue }), s.rateLimits({ queue }), s.groupLimits({ queue })]);
    return { concurrency, rates, groups };
  }

  it('shows the concurrency limit with the tasks leased, the rate, a hold and the group limit, in the page and the JSON', async () => {
    const s = await redis.scheduler();
    const { queue } = await seed(s);
    const base = await serve(s);
    const none = await getPage(`${base}/?queue=${queue}`);
    expect(none.body).toContain('<dd data-limit="concurrency">no limit <span class="dim">(1 active)</span></dd>');
    expect(none.body).toContain('<dd data-limit="rate">no limit</dd><dt>held</dt><dd data-limit="held">no</dd>');

    await s.limitConcurrency(4, { queue });
    await s.limitRate({ max: 100, per: { minutes: 1 }, queue });
    await s.limitGroups(2, { queue });
    await s.limitGroups(5, { queue, group: 'big' });
    const until = await s.backoffQueue(queue, 60_000);
    const { body } = await getPage(`${base}/?queue=${queue}`);
    expect(body).toContain('<dd data-limit="concurrency">4 at once <span class="dim">(1 active)</span></dd>');
    expect(body).toContain('<dd data-limit="rate">100 per 1 min</dd>');
    expect(body).toMatch(new RegExp(`<dd data-limit="held">claims held for <time datetime="${new Date(until).toISOString()}" title="[^"]+ UTC">(59|60) s</time> more</dd>`));
    expect(body).toContain('<dd data-limit="group">2 at once per group; 1 group with a limit of its own</dd>');
    // The forms start from what is in force.
    expect(body).toMatch(/name="limit" min="1" max="100000" step="1" required value="4">/);
    expect(body).toMatch(/name="max" min="1" max="1000000" step="1" required value="100">/);
    expect(body).toContain('<option value="60000" selected>minute</option>');

    const o = (await (await fetch(`${base}/api/overview?queue=${queue}`)).json()) as Overview;
    expect(o.selected?.limits).toEqual({
      concurrency: 4,
      active: 1,
      rate: { max: 100, per: 60_000 },
      heldUntil: until,
      groupDefault: 2,
      ownGroupLimits: 1,
      groupRate: null,
      ownGroupRates: 0,
      groupRates: {},
    });
    const withHtml = (await (await fetch(`${base}/api/overview?queue=${queue}&fragments=1`)).json()) as { fragments: Record<string, string> };
    expect(withHtml.fragments.limits).toContain('4 at once');
  });

  it('shows the rate of each group and the groups with a rate of their own, escaped and capped, in the page and the JSON', async () => {
    const s = await redis.scheduler();
    const { queue } = await seed(s);
    const base = await serve(s);
    expect((await getPage(`${base}/?queue=${queue}`)).body).toContain('<dd data-limit="group-rate">no limit</dd></dl>');

    const hostile = '<b>"x"&\u202Egpj\u200b';
    await s.limitRate({ max: 10, per: { seconds: 1 }, queue, eachGroup: true });
    await s.limitRate({ max: 500, per: { minutes: 1 }, queue, group: 'acme' });
    await s.limitRate({ max: 3, per: 1000, queue, group: hostile });
    const more = Array.from({ length: MAX_GROUP_RATES + 2 }, (_, i) => `g${String(i).padStart(2, '0')}`);
    for (const group of more) await s.limitRate({ max: 1, per: 60_000, queue, group });
    const { body } = await getPage(`${base}/?queue=${queue}`);
    expect(body).toContain(`<dd data-limit="group-rate">10 per 1.0 s per group; ${MAX_GROUP_RATES + 4} groups with a rate of their own</dd>`);
    expect(body).toContain(
      '<dt>own group rates</dt><dd data-limit="group-rates"><ul class="deps">' +
        '<li data-group-rate="&lt;b&gt;&quot;x&quot;&amp;\u202Egpj\u200b"><code>&lt;b&gt;&quot;x&quot;&amp;\\u202Egpj\\u200B</code> 3 per 1.0 s</li>' +
        '<li data-group-rate="acme"><code>acme</code> 500 per 1 min</li><li data-group-rate="g00"><code>g00</code> 1 per 1 min</li>',
    );
    // Sorted by name, the first MAX_GROUP_RATES are listed: the last four g's are counted only.
    expect(body).toContain('<li data-group-rate="g47"><code>g47</code> 1 per 1 min</li><li class="dim">4 more; rateLimits() or docket limits --json lists every one</li></ul></dd>');
    expect(body).not.toContain('data-group-rate="g48"');
    expect(body).not.toContain('<b>');

    const o = (await (await fetch(`${base}/api/overview?queue=${queue}`)).json()) as Overview;
    const limits = o.selected!.limits;
    expect(limits).toMatchObject({ rate: null, groupRate: { max: 10, per: 1000 }, ownGroupRates: MAX_GROUP_RATES + 4 });
    expect(Object.keys(limits.groupRates).sort()).toEqual([hostile, 'acme', ...more.slice(0, MAX_GROUP_RATES - 2)]);
    expect(limits.groupRates).toMatchObject({ [hostile]: { max: 3, per: 1000 }, acme: { max: 500, per: 60_000 }, g00: { max: 1, per: 60_000 } });
  });

  it('sets and removes the concurrency and rate limits with the CSRF token', async () => {
    const s = await redis.scheduler();
    const { queue } = await seed(s);
    const base = await serve(s);
    const csrf = { 'x-csrf-token': csrfOf((await getPage(`${base}/?queue=${queue}`)).body), origin: base, 'sec-fetch-site': 'same-origin' };

    expect(await (await post(`${base}/api/limit-concurrency`, { queue, limit: 3 }, csrf)).json()).toEqual({ ok: true, queue, limit: 3 });
    expect((await s.concurrencyLimit({ queue })).limit).toBe(3);
    // The page's script posts the form's fields as strings.
    expect(await (await post(`${base}/api/limit-rate`, { queue, max: '50', per: '1000' }, csrf)).json()).toEqual({ ok: true, queue, rate: { max: 50, per: 1000 } });
    expect((await s.rateLimits({ queue })).queue).toEqual({ max: 50, per: 1000 });
    expect((await getPage(`${base}/?queue=${queue}`)).body).toContain('<dd data-limit="rate">50 per 1.0 s</dd>');

    expect(await (await post(`${base}/api/limit-concurrency`, { queue, limit: 'off' }, csrf)).json()).toEqual({ ok: true, queue, limit: null });
    expect(await (await post(`${base}/api/limit-rate`, { queue, max: null }, csrf)).json()).toEqual({ ok: true, queue, rate: null });
    expect((await s.concurrencyLimit({ queue })).limit).toBeNull();
    expect((await s.rateLimits({ queue })).queue).toBeNull();
  });

  it('takes the plain form posts (script off), and answers them with a redirect to the page', async () => {
    const s = await redis.scheduler();
    const { queue } = await seed(s);
    const base = await serve(s);
    const csrf = csrfOf((await getPage(`${base}/?queue=${queue}`)).body);
    const form = (fields: Record<string, string>, action: string) =>
      fetch(`${base}/api/${action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ csrf, queue, ...fields }).toString(),
      });
    const set = await form({ max: '7', per: '3600000' }, 'limit-rate');
    expect(set.status).toBe(303);
    expect(set.headers.get('location')).toBe(`/?queue=${queue}`);
    expect((await s.rateLimits({ queue })).queue).toEqual({ max: 7, per: 3_600_000 });
    expect((await form({ limit: '9' }, 'limit-concurrency')).status).toBe(303);
    expect((await s.concurrencyLimit({ queue })).limit).toBe(9);
    expect((await form({ max: 'off' }, 'limit-rate')).status).toBe(303);
    expect((await s.rateLimits({ queue })).queue).toBeNull();
  });

  it('refuses a post without the CSRF token, bad input with 400 naming the field, an unknown queue with 404, and writes nothing', async () => {
    const s = await redis.scheduler();
    const { queue } = await seed(s);
    await s.limitConcurrency(2, { queue });
    await s.limitRate({ max: 10, per: 1000, queue });
    const base = await serve(s);
    const before = await limitsOf(s, queue);
    for (const headers of [{}, { 'x-csrf-token': 'wrong' }] as Array<Record<string, string>>) {
      for (const [action, body] of [
        ['limit-concurrency', { queue, limit: 'off' }],
        ['limit-rate', { queue, max: null }],
      ] as const) {
        const res = await post(`${base}/api/${action}`, body, headers);
        expect([action, res.status]).toEqual([action, 403]);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ERR_CSRF');
      }
    }
    const csrf = { 'x-csrf-token': csrfOf((await getPage(`${base}/`)).body) };
    const cases: Array<[string, unknown, number, string]> = [
      ['limit-concurrency', { queue, limit: 0 }, 400, 'limit'],
      ['limit-concurrency', { queue, limit: 100_001 }, 400, 'limit'],
      ['limit-concurrency', { queue, limit: '2.5' }, 400, 'limit'],
      ['limit-concurrency', { queue, limit: '' }, 400, 'limit'],
      ['limit-concurrency', { queue }, 400, 'limit'],
      ['limit-concurrency', { queue: 'a b', limit: 3 }, 400, 'queue'],
      ['limit-concurrency', { queue, limit: 3, group: 'g' }, 400, 'group'],
      ['limit-rate', { queue, max: 0, per: 1000 }, 400, 'max'],
      ['limit-rate', { queue, max: 'lots', per: 1000 }, 400, 'max'],
      ['limit-rate', { queue, max: 5 }, 400, 'per'],
      ['limit-rate', { queue, max: 5, per: 0 }, 400, 'per'],
      ['limit-rate', { queue, max: 5, per: 31 * 86_400_000 }, 400, 'per'],
      ['limit-rate', { queue, max: 'off', per: 1000 }, 400, 'per'],
      ['limit-concurrency', { queue: 'no-such-queue', limit: 3 }, 404, 'queue'],
      ['limit-rate', { queue: 'no-such-queue', max: 5, per: 1000 }, 404, 'queue'],
    ];
    for (const [action, body, status, field] of cases) {
      const res = await post(`${base}/api/${action}`, body, csrf);
      expect([action, body, res.status]).toEqual([action, body, status]);
      expect(((await res.json()) as { error: { field: string } }).error.field).toBe(field);
    }
    expect(await limitsOf(s, queue)).toEqual(before);
    expect(await limitsOf(s, 'no-such-queue')).toMatchObject({ concurrency: { limit: null }, rates: { queue: null } });
    expect(await s.queues()).toEqual([queue]);
  });
});

describe('access token', () => {
  const token = 'correct-horse-battery-staple';

  it('refuses the page and the API without it, with 401', async () => {
    const s = await redis.scheduler();
    await seed(s);
    const base = await serve(s, { token });
    for (const path of ['/', '/api/overview', '/?token=wrong-token-of-enough-length']) {
      const res = await fetch(`${base}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain('data-stat="');
    }
    expect((await fetch(`${base}/api/overview`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await post(`${base}/api/pause`, { queue: 'mail' })).status).toBe(401);
    expect((await s.stats({ queue: 'mail' })).paused).toBe(false);
  });

  it('accepts a bearer header', async () => {
    const s = await redis.scheduler();
    await seed(s);
    const base = await serve(s, { token });
    const res = await fetch(`${base}/api/overview`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Overview).queues).toHaveLength(1);
  });

  it('turns ?token= into an HttpOnly SameSite=Strict cookie and a clean URL', async () => {
    const s = await redis.scheduler();
    await seed(s);
    const base = await serve(s, { token });
    const first = await fetch(`${base}/?queue=mail&token=${token}`, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/?queue=mail');
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^docket_[0-9a-f]{8}=correct-horse-battery-staple; Path=\/; HttpOnly; SameSite=Strict$/);
    const page = await getPage(`${base}/?queue=mail`, { headers: { cookie: cookie.split(';')[0] } });
    expect(page.status).toBe(200);
    expect(shownCounts(page.body).dead).toBe(2);
  });
});

describe('mounting', () => {
  it('serves under basePath, with links and the API there too', async () => {
    const s = await redis.scheduler();
    await seed(s);
    const base = await serve(s, { basePath: '/ops/docket' });
    const { status, body } = await getPage(`${base}/ops/docket/`);
    expect(status).toBe(200);
    expect(body).toContain('"api":"/ops/docket/api/overview"');
    expect(body).toContain('action="/ops/docket/api/redrive"');
    expect(body).toContain('href="/ops/docket/?queue=mail"');
    expect((await fetch(`${base}/ops/docket`)).status).toBe(200);
    expect((await fetch(`${base}/ops/docket/api/overview`)).status).toBe(200);
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/api/overview`)).status).toBe(404);
  });

  it('answers a request target no URL parser takes (GET //?a) with 404, and stays up', async () => {
    const s = await redis.scheduler();
    const base = await serve(s);
    expect((await fetch(`${base}//?queue=a`)).status).toBe(404);
    expect((await fetch(`${base}/`)).status).toBe(200);
  });

  it('works where a framework strips the mount path (Express, middie), and passes other paths to next', async () => {
    const s = await redis.scheduler();
    await seed(s);
    const dashboard = createDashboard(s, { basePath: '/docket' });
    // What app.use('/docket', dashboard) does: req.url loses the mount path, req.originalUrl keeps it.
    const base = await listen((req, res) => {
      const url = req.url ?? '/';
      if (!url.startsWith('/docket')) return void res.end('app');
      Object.assign(req, { originalUrl: url, url: url.slice('/docket'.length) || '/' });
      dashboard(req, res, () => res.end('next'));
    });
    const { body } = await getPage(`${base}/docket/?queue=mail`);
    expect(shownCounts(body).ready).toBe(2);
    expect(body).toContain('action="/docket/api/redrive"');
    expect((await fetch(`${base}/docket/api/overview`)).status).toBe(200);
    expect(await (await fetch(`${base}/docket/elsewhere`)).text()).toBe('next');
    expect(await (await fetch(`${base}/other`)).text()).toBe('app');
  });
});

describe('a bad record', () => {
  it('leaves the page and the overview up, with the impossible times marked', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { queue, held, dead, delayed } = await seed(s, 'odd');
    const keys = queueKeys(s.prefix, queue);
    const meta = async (hash: string) => (await readRecord(raw, s.prefix, queue, hash)).meta;
    await writeRecord(raw, s.prefix, queue, delayed[0], { ...(await meta(delayed[0])), r: 1e300 });
    await raw.zAdd(keys.delayed, { score: 1e300, value: delayed[0] });
    await writeRecord(raw, s.prefix, queue, held.hash, { ...(await meta(held.hash)), l: 1e300 });
    await raw.zAdd(keys.active, { score: 1e300, value: held.hash });
    await raw.zAdd(keys.dead, { score: -1e300, value: dead[0] });
    const base = await serve(s);

    for (const path of ['/', `/?queue=${queue}`]) {
      const { status, body } = await getPage(`${base}${path}`);
      expect([path, status]).toEqual([path, 200]);
      expect(body).toContain('invalid time (1e+300)');
      expect(body).toContain('invalid time (-1e+300)');
      expect(shownCounts(body)).toMatchObject({ delayed: 2, active: 1, dead: 2 });
      // The good tasks are shown as before.
      expect(body).toContain('{&quot;job&quot;:&quot;later&quot;}');
      expect(body).toContain('Error: boom 2');
    }
    const res = await fetch(`${base}/api/overview?queue=${queue}&fragments=1`);
    expect(res.status).toBe(200);
    const o = (await res.json()) as Overview & { fragments: Record<string, string> };
    expect(o.selected?.delayed.tasks.map((t) => t.runAt)).toEqual([expect.any(Number), 1e300]);
    expect(o.fragments.timeline).toContain('invalid time (1e+300)');
    expect(o.fragments.active).toContain('invalid time (1e+300)');
  });
});

describe('a record that is not JSON', () => {
  it('leaves the page up, shows the other tasks, and marks the unreadable one', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { queue, delayed } = await seed(s, 'damaged');
    await writeRecord(raw, s.prefix, queue, delayed[0], '{"r":');
    const base = await serve(s);
    const { status, body } = await getPage(`${base}/?queue=${queue}`);
    expect(status).toBe(200);
    expect(body).toContain('invalid time (NaN)');
    expect(body).toContain('{&quot;job&quot;:&quot;later&quot;}');
    // Where errors show (dead tasks), it says why.
    for (const job of ['wrecked', 'whole']) {
      await s.put({ job }, { queue: 'wrecked', maxAttempts: 1 });
      await s.fail((await s.claim({ queue: 'wrecked' }))!, { error: `no ${job}` });
    }
    const [wrecked] = (await s.listDead({ queue: 'wrecked' })).filter((t) => (t.data as { job: string }).job === 'wrecked');
    await writeRecord(raw, s.prefix, 'wrecked', wrecked.hash, 'not json');
    const dead = await getPage(`${base}/?queue=wrecked`);
    expect(dead.status).toBe(200);
    expect(dead.body).toContain('record is unreadable');
    expect(dead.body).toContain('no whole');
  });
});

describe('payload previews', () => {
  it('reads only the start of each payload from Redis, and says how large the payload is', async () => {
    const s = await redis.scheduler();
    const big = 'x'.repeat(400 * 1024);
    for (let i = 0; i < 4; i++) await s.put({ big, i }, { queue: 'big', delay: 60_000 + i });
    for (let i = 0; i < 2; i++) await s.put({ big, dead: i }, { queue: 'big', maxAttempts: 1 });
    for (let i = 0; i < 2; i++) await s.fail((await s.claim({ queue: 'big' }))!, { error: 'no' });
    await s.put({ big, active: 1 }, { queue: 'big' });
    await s.claim({ queue: 'big', lease: 60_000 });
    const relay = await countingRelay();
    const base = await serve(await redis.scheduler({ prefix: s.prefix, url: relay.url }));

    const before = relay.received();
    const res = await fetch(`${base}/api/overview?queue=big&fragments=1`);
    const body = await res.text();
    // 7 payloads of 400 KiB stay in Redis: a refresh reads a few KiB of each.
    expect(relay.received() - before).toBeLessThan(64 * 1024);
    expect(body.length).toBeLessThan(64 * 1024);
    const o = JSON.parse(body) as Overview & { fragments: Record<string, string> };
    const first = o.selected!.delayed.tasks[0];
    expect(first).toMatchObject({ preview: expect.stringMatching(/^\{"big":"x{100,}…$/), bytes: 400 * 1024 + '{"big":"","i":0}'.length });
    expect(o.selected!.dead.tasks).toHaveLength(2);
    expect(o.selected!.active.tasks).toHaveLength(1);
    expect(o.fragments.timeline).toContain('(400 KiB)');
    expect(o.fragments.dead).toContain('(400 KiB)');

    // A small payload is shown whole, without a size.
    await s.put({ small: true }, { queue: 'big', delay: 1000 });
    const page = await getPage(`${base}/?queue=big`);
    expect(page.body).toContain('<code class="data" title="{&quot;small&quot;:true}">{&quot;small&quot;:true}</code>');
  });
});

describe('progress and task lookup', () => {
  /** Characters that hide or reorder text: none may reach what a person reads. */
  const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/;
  const hostile = '</script><script>alert(1)</script><img src=x onerror=alert(2)>\u202Egpj.exe\u001b[2J\u200b';

  /** GET <base>/api/task for `hash` of `queue`. */
  async function task(base: string, queue: string, hash: string): Promise<{ status: number; body: Lookup }> {
    const res = await fetch(`${base}/api/task?queue=${encodeURIComponent(queue)}&hash=${encodeURIComponent(hash)}`);
    return { status: res.status, body: (await res.json()) as Lookup };
  }

  it('shows each active task’s progress, escaped and cut at 120 characters', async () => {
    const s = await redis.scheduler();
    const queue = 'work';
    const plain = await s.put({ n: 1 }, { queue });
    expect(await s.progress((await s.claim({ queue, lease: 60_000 }))!, { done: 3, of: 10 })).toBe(true);
    const evil = await s.put({ n: 2 }, { queue });
    expect(await s.progress((await s.claim({ queue, lease: 60_000 }))!, { note: hostile })).toBe(true);
    const long = await s.put({ n: 3 }, { queue });
    expect(await s.progress((await s.claim({ queue, lease: 60_000 }))!, { log: 'x'.repeat(5000) })).toBe(true);
    const none = await s.put({ n: 4 }, { queue });
    await s.claim({ queue, lease: 60_000 });
    const base = await serve(s);

    const o = (await (await fetch(`${base}/api/overview?queue=${queue}&fragments=1`)).json()) as Overview & { fragments: Record<string, string> };
    const progress = Object.fromEntries(o.selected!.active.tasks.map((t) => [t.hash, t.progressPreview]));
    expect(progress[plain.hash]).toBe('{"done":3,"of":10}');
    expect(progress[evil.hash]).toBe(JSON.stringify({ note: hostile }));
    // Only the head of a long progress is read from Redis, and it is shown cut.
    expect(progress[long.hash]).toMatch(/^\{"log":"x{100,}…$/);
    expect(progress[long.hash]).toHaveLength(120);
    expect(progress[none.hash]).toBeNull();

    const { body } = await getPage(`${base}/?queue=${queue}`);
    expect(body).toContain('<th>progress</th>');
    expect(body).toMatch(new RegExp(`data-hash="${plain.hash}">.*?<td class="progress"><code class="data" title="\\{&quot;done&quot;:3,&quot;of&quot;:10\\}">`, 's'));
    expect(body).toMatch(new RegExp(`data-hash="${none.hash}">.*?<td class="progress"><span class="dim">–</span>`, 's'));
    // JSON writes the escape character as \u001b itself; printable() escapes what JSON leaves raw.
    expect(body).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;\\u202Egpj.exe\\u001b[2J\\u200B');
    expect(body).not.toContain('<img src=x');
    expect(body.match(/<script/g)).toHaveLength(2);
    expect(visibleText(body)).not.toMatch(HIDDEN);
    expect(visibleText(o.fragments.active)).not.toMatch(HIDDEN);
  });

  it('answers GET /api/task with the live task, or a finished task’s kept outcome, cut at 2,000 characters', async () => {
    const s = await redis.scheduler();
    const queue = 'jobs';
    // The kept outcomes alone: with the done history (on by default) a done task is still a task.
    await s.keep({ queue, done: { count: 0 } });
    const live = await s.put({ job: 'live' }, { queue, keepResult: 60_000, key: 'k1' });
    expect(await s.progress((await s.claim({ queue, lease: 60_000 }))!, { step: 1 })).toBe(true);
    const done = await s.put({ job: 'done' }, { queue, keepResult: 60_000 });
    const result = { said: hostile, tail: 'y'.repeat(5000) };
    expect(await s.ack((await s.claim({ queue }))!, result)).toBe(true);
    const dead = await s.put({ job: 'dead' }, { queue, keepResult: 60_000, maxAttempts: 1 });
    expect(await s.fail((await s.claim({ queue }))!, { error: `boom ${hostile}\n${'at x\n'.repeat(1000)}` })).toBe('dead');
    await s.purgeDead({ queue });
    const base = await serve(s);

    const a = await task(base, queue, live.hash);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ queue, hash: live.hash, now: expect.any(Number), outcome: null });
    expect(a.body.task).toMatchObject({ hash: live.hash, state: 'active', preview: '{"job":"live"}', progressPreview: '{"step":1}', key: 'k1', keepResult: 60_000, attempts: 1 });

    const b = await task(base, queue, done.hash);
    expect(b.status).toBe(200);
    expect(b.body.task).toBeNull();
    expect(b.body.outcome).toMatchObject({ hash: done.hash, queue, state: 'done', attempts: 1, finishedAt: expect.any(Number), error: null });
    expect(b.body.outcome?.result).toHaveLength(2000);
    expect(b.body.outcome?.result).toMatch(/^\{"said":".*y…$/s);
    expect(b.body.outcome?.result?.slice(0, -1)).toBe(JSON.stringify(result).slice(0, 1999));

    const c = await task(base, queue, dead.hash);
    expect(c.body.outcome).toMatchObject({ state: 'dead', result: null, error: expect.stringMatching(/^boom <\/script>/) });
    expect(c.body.outcome?.error).toHaveLength(2000);

    // A failed until-start task merged into the waiting task of its identity: the page links to it.
    const first = await s.put({ job: 'refresh' }, { queue, keepResult: 60_000, unique: 'until-start' });
    const held = (await s.claim({ queue }))!;
    const next = await s.put({ job: 'refresh' }, { queue, keepResult: 60_000, unique: 'until-start' });
    expect(await s.fail(held, { error: 'stale' })).toBe('merged');
    expect((await task(base, queue, first.hash)).body.outcome).toMatchObject({ state: 'merged', into: next.hash, result: null, error: null });
    const merged = await getPage(`${base}/?queue=${queue}&hash=${first.hash}`);
    expect(merged.body).toContain(`<dt>merged into</dt><dd><a href="/?queue=${queue}&amp;hash=${encodeURIComponent(next.hash)}"><code>${next.hash}</code></a></dd>`);

    const nobody = await task(base, queue, 'f'.repeat(32));
    expect(nobody).toEqual({ status: 404, body: { error: { code: 'ERR_NOT_FOUND', message: `no task ${'f'.repeat(32)} in queue ${queue}, and no kept outcome`, field: 'hash' } } });
  });

  it('refuses a bad or missing hash or queue with 400 naming it, and anything but GET', async () => {
    const s = await redis.scheduler();
    const base = await serve(s);
    const cases: Array<[string, string]> = [
      ['?queue=jobs', 'hash'],
      ['?queue=jobs&hash=', 'hash'],
      ['?queue=jobs&hash=has%20space', 'hash'],
      [`?queue=jobs&hash=${'a'.repeat(1025)}`, 'hash'],
      ['?hash=abc', 'queue'],
      ['?queue=a%20b&hash=abc', 'queue'],
    ];
    for (const [query, field] of cases) {
      const res = await fetch(`${base}/api/task${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      const { error } = (await res.json()) as { error: { field: string; message: string } };
      expect(error.field).toBe(field);
      expect(error.message).toMatch(new RegExp(`^${field}: `));
    }
    const posted = await post(`${base}/api/task?queue=jobs&hash=abc`, {});
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
    // The page refuses a bad ?hash= too, with a page that says why.
    const page = await getPage(`${base}/?queue=jobs&hash=has%20space`);
    expect(page.status).toBe(400);
    expect(page.body).toContain('hash: expected the hash string that put() returned');
  });

  it('looks a task up from the page’s form (a GET), shows what it found escaped, and keeps it in the refreshes', async () => {
    const s = await redis.scheduler();
    const queue = 'jobs';
    // A kept outcome's lookup: the done history (on by default) is off for this queue.
    await s.keep({ queue, done: { count: 0 } });
    const done = await s.put({ job: 'done' }, { queue, keepResult: 60_000 });
    expect(await s.ack((await s.claim({ queue }))!, { said: hostile, tail: 'y'.repeat(5000) })).toBe(true);
    const live = await s.put({ job: 'live' }, { queue });
    const held = (await s.claim({ queue, lease: 60_000 }))!;
    await s.progress(held, { pct: 10 });
    const base = await serve(s);

    // The form: a GET to the page, with the queue shown and a hash field; no script needed.
    const first = await getPage(`${base}/?queue=${queue}`);
    expect(first.body).toMatch(/<form class="find" method="get" action="\/" role="search">/);
    expect(first.body).toContain(`<input name="queue" value="${queue}"`);
    expect(first.body).toContain('<div class="found" data-fragment="task"></div>');

    // Pasted with a trailing line break: trimmed.
    const { status, body } = await getPage(`${base}/?queue=${queue}&hash=${done.hash}%0A`);
    expect(status).toBe(200);
    expect(body).toContain(`<input name="hash" value="${done.hash}"`);
    expect(body).toContain('<dl class="fields" data-found="outcome"><dt>state</dt><dd><span class="state done">done</span>');
    expect(body).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;\\u202Egpj.exe');
    expect(body).not.toContain('<img src=x');
    expect(body.match(/<script/g)).toHaveLength(2);
    expect(visibleText(body)).not.toMatch(HIDDEN);
    expect(body).toMatch(/y{1000,}…<\/pre>/);
    expect(body).not.toMatch(/y{2000}/);
    // The page's script asks for the same lookup on each refresh.
    expect(body).toContain(`"hash":"${done.hash}"`);

    const refreshed = (await (await fetch(`${base}/api/overview?queue=${queue}&hash=${live.hash}&fragments=1`)).json()) as {
      lookup: { task: { progressPreview: string } };
      fragments: Record<string, string>;
    };
    expect(refreshed.lookup.task.progressPreview).toBe('{"pct":10}');
    expect(refreshed.fragments.task).toContain('data-found="task"');
    expect(refreshed.fragments.task).toContain('{&quot;pct&quot;:10}');
    expect(await s.progress(held, { pct: 90 })).toBe(true);
    const later = (await (await fetch(`${base}/api/overview?queue=${queue}&hash=${live.hash}&fragments=1`)).json()) as { fragments: Record<string, string> };
    expect(later.fragments.task).toContain('{&quot;pct&quot;:90}');

    // A hash nobody knows: said on the page, not an error.
    const unknown = await getPage(`${base}/?queue=${queue}&hash=${'f'.repeat(32)}`);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toContain('data-found="none"');
    expect(unknown.body).toContain('No such task in this queue, and no kept outcome.');
  });

  it('shows what a looked-up task was put after, each with its state and a link to look it up, escaped', async () => {
    const s = await redis.scheduler();
    const queue = 'jobs';
    await s.put('elsewhere', { queue: 'other' });
    const done = await s.put({ job: 'done' }, { queue, keepResult: 60_000 });
    const live = await s.put({ job: 'live' }, { queue });
    await s.ack((await s.claim({ queue }))!);
    const odd = `gone${hostile}`;
    const waiter = await s.put({ job: 'waiter' }, { queue, after: [done.hash, live.hash, { queue: 'other', hash: odd }] });
    const base = await serve(s);

    const found = await task(base, queue, waiter.hash);
    expect(found.body.task).toMatchObject({
      state: 'waiting',
      waitingOn: null,
      dependencyCount: 3,
      dependencies: [
        { queue, hash: done.hash, state: 'done' },
        { queue, hash: live.hash, state: 'pending' },
        { queue: 'other', hash: odd, state: 'gone' },
      ],
    });
    const { body } = await getPage(`${base}/?queue=${queue}&hash=${waiter.hash}`);
    expect(body).toContain('<dt>put after (3)</dt><dd><ul class="deps">');
    expect(body).toContain(`<li data-dependency="${done.hash}"><span class="state done">done</span> <a href="/?queue=${queue}&amp;hash=${done.hash}"><code>${done.hash}</code></a></li>`);
    expect(body).toContain(`<span class="state pending">pending</span> <a href="/?queue=${queue}&amp;hash=${live.hash}">`);
    // Another queue's task is named with its queue, and its link looks it up there.
    expect(body).toContain(`<span class="state gone">gone</span> <a href="/?queue=other&amp;hash=${encodeURIComponent(odd)}"><code>gone&lt;/script&gt;&lt;script&gt;alert(1)`);
    expect(body).toContain('</code></a> <span class="dim">in</span> other</li>');
    expect(body).not.toContain('<img src=x');
    expect(body.match(/<script/g)).toHaveLength(2);
    expect(visibleText(body)).not.toMatch(HIDDEN);

    // A task put without `after`: nothing of the kind.
    expect((await task(base, queue, live.hash)).body.task).toMatchObject({ dependencies: [], dependencyCount: 0 });
    expect((await getPage(`${base}/?queue=${queue}&hash=${live.hash}`)).body).not.toContain('<dt>put after');

    // Many: the first 100, and how many more.
    const roots = await s.putMany(Array.from({ length: 120 }, (_, i) => ({ data: i, options: { queue: 'many' } })));
    const crowd = await s.put('crowd', { queue: 'many', after: roots.map((r) => r.hash) });
    const many = await task(base, 'many', crowd.hash);
    expect(many.body.task?.dependencies).toHaveLength(100);
    expect(many.body.task?.dependencyCount).toBeNull();
    expect((await getPage(`${base}/?queue=many&hash=${crowd.hash}`)).body).toContain('<dt>put after (more than 100)</dt>');
    expect((await getPage(`${base}/?queue=many&hash=${crowd.hash}`)).body).toContain('<li class="dim">and more (see <code>docket inspect</code>)</li></ul>');
    // 100 exactly: all of them, counted.
    const hundred = await s.put('hundred', { queue: 'many', after: roots.slice(0, 100).map((r) => r.hash) });
    expect((await task(base, 'many', hundred.hash)).body.task).toMatchObject({ dependencyCount: 100 });
  });

  it('asks for the access token on a lookup like everywhere else', async () => {
    const s = await redis.scheduler();
    const token = 'correct-horse-battery-staple';
    const { hash } = await s.put('x', { queue: 'jobs' });
    const base = await serve(s, { token });
    expect((await fetch(`${base}/api/task?queue=jobs&hash=${hash}`)).status).toBe(401);
    expect((await fetch(`${base}/?queue=jobs&hash=${hash}`, { redirect: 'manual' })).status).toBe(401);
    const res = await fetch(`${base}/api/task?queue=jobs&hash=${hash}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { task: { state: string } }).task.state).toBe('ready');
  });
});

describe('names', () => {
  it('shows bidi, zero-width and control characters of names and errors escaped, and still acts on the queue', async () => {
    const s = await redis.scheduler();
    const queue = 'invoices\u202Efdp.exe';
    await s.put({ n: 1 }, { queue, group: 'tenant\u200B1', delay: 60_000 });
    await s.put({ n: 2, note: 'a\u2066b' }, { queue, maxAttempts: 1 });
    await s.fail((await s.claim({ queue }))!, { error: new Error('boom \u2067here\u2069\u0085') });
    await s.put({ n: 3 }, { queue });
    await s.claim({ queue, lease: 60_000 });
    const base = await serve(s);
    const { status, body } = await getPage(`${base}/?queue=${encodeURIComponent(queue)}`);
    expect(status).toBe(200);
    const text = visibleText(body);
    expect(text).toContain('invoices\\u202Efdp.exe');
    expect(text).toContain('group tenant\\u200B1');
    expect(text).toContain('Error: boom \\u2067here\\u2069\\u0085');
    expect(text).toContain('a\\u2066b');
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\u2060\ufeff\u0080-\u009f]/);
    expect(body).toMatch(/<title>invoices\\u202Efdp\.exe · docket<\/title>/);
    // The forms and links carry the real name, so the buttons act on the queue.
    expect(body).toContain(`href="/?queue=${encodeURIComponent(queue)}"`);
    const csrf = csrfOf(body);
    const paused = await post(`${base}/api/pause`, { queue }, { 'x-csrf-token': csrf });
    expect(await paused.json()).toEqual({ ok: true, queue, changed: true });
    // An error message quoting a name (shown in the page's toast) escapes it too.
    const missing = await post(`${base}/api/pause`, { queue: 'gone\u202Eq' }, { 'x-csrf-token': csrf });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe('no queue named gone\\u202Eq');
    const fragments = ((await (await fetch(`${base}/api/overview?queue=${encodeURIComponent(queue)}&fragments=1`)).json()) as { fragments: Record<string, string> }).fragments;
    expect(visibleText(Object.values(fragments).join(''))).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f]/);
  });
});

describe('serveDashboard', () => {
  it('binds 127.0.0.1 on a free port by default, and closes', async () => {
    const s = await redis.scheduler();
    await seed(s);
    const served = await serveDashboard(s);
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const { status, body } = await getPage(served.url);
      expect(status).toBe(200);
      expect(shownCounts(body).dead).toBe(2);
    } finally {
      await served.close();
    }
    await expect(fetch(served.url)).rejects.toThrow();
  });

  it('puts the token in the url, and refuses a foreign Host (DNS rebinding)', async () => {
    const s = await redis.scheduler();
    const served = await serveDashboard(s, { token: 'a-token-of-sixteen-chars', basePath: '/d' });
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/d\/\?token=a-token-of-sixteen-chars$/);
      expect((await fetch(served.url, { redirect: 'manual' })).status).toBe(303);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(served.url, { headers: { host: `evil.example:${new URL(served.url).port}` } }, (res) => resolve(res.statusCode ?? 0));
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(403);
    } finally {
      await served.close();
    }
  });

  it('cuts off a request whose headers or body come too slowly, after 10 s', async () => {
    const s = await redis.scheduler();
    const served = await serveDashboard(s);
    const { port } = new URL(served.url);
    /** Opens a connection, sends `head`, then one more byte every 500 ms; resolves to what came back once the server closes it. */
    const drip = async (head: string) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk: Buffer) => void (answer += chunk.toString()));
      socket.write(head);
      const timer = setInterval(() => socket.write(' '), 500);
      const started = Date.now();
      const closed = new Promise<boolean>((resolve) => socket.on('close', () => resolve(true)));
      const cut = await Promise.race([closed, sleep(15_000).then(() => false)]);
      clearInterval(timer);
      socket.destroy();
      return { cut, answer, after: Date.now() - started };
    };
    try {
      const host = `Host: 127.0.0.1:${port}\r\n`;
      const [body, headers] = await Promise.all([
        drip(`POST /api/pause HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`),
        drip(`GET / HTTP/1.1\r\n${host}X-Slow: `),
      ]);
      for (const slow of [body, headers]) {
        expect(slow).toMatchObject({ cut: true, answer: expect.stringMatching(/^HTTP\/1\.1 408 /) });
        expect(slow.after).toBeGreaterThan(9_000);
        expect(slow.after).toBeLessThan(13_000);
      }
      expect((await s.stats({ queue: 'default' })).paused).toBe(false);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('takes at most 100 connections at once', async () => {
    const s = await redis.scheduler();
    const served = await serveDashboard(s);
    const port = Number(new URL(served.url).port);
    const sockets: net.Socket[] = [];
    try {
      for (let i = 0; i < 100; i++) {
        const socket = net.connect(port, '127.0.0.1');
        sockets.push(socket);
        await new Promise((resolve) => socket.once('connect', resolve));
      }
      await sleep(50);
      const extra = net.connect(port, '127.0.0.1');
      sockets.push(extra);
      const closed = await Promise.race([new Promise((resolve) => extra.once('close', () => resolve(true))), sleep(2000).then(() => false)]);
      expect(closed).toBe(true);
      sockets.splice(0, 100).forEach((socket) => socket.destroy());
      await sleep(50);
      expect((await fetch(served.url)).status).toBe(200);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await served.close();
    }
  });

  it('refuses bad options with a ValidationError naming them', async () => {
    const s = await redis.scheduler();
    const cases: Array<[unknown, string]> = [
      [{ token: 'short' }, 'options.token'],
      [{ basePath: 'docket' }, 'options.basePath'],
      [{ basePath: '/a?b' }, 'options.basePath'],
      [{ limit: 0 }, 'options.limit'],
      [{ limti: 5 }, 'options.limti'],
    ];
    for (const [options, field] of cases) {
      expect(() => createDashboard(s, options as DashboardOptions)).toThrow(expect.objectContaining({ field }));
    }
    await expect(serveDashboard(s, { port: 70_000 })).rejects.toBeInstanceOf(ValidationError);
    expect(() => createDashboard({} as Scheduler)).toThrow(ValidationError);
  });
});
