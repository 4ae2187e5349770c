/**
 * The dashboard's views beside the overview, clicked through in a real browser (Debian's chromium,
 * driven by playwright-core): the ready list and its next page, a search, a task's page and its
 * re-drive, re-drive all, the schedules, workers and groups tabs, the 401 page's token field, and
 * every view at 390 px wide with no table cut off (each scrolls sideways within its card) and no
 * script error or CSP refusal. Times show in UTC, with the zone named.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Scheduler, Worker } from '../../lib';
import { serveDashboard } from '../../lib/surfaces/dashboard';
import { eventually, useRedis } from '../support/harness';
import { launchChromium, TIMEOUT } from './support/pages';

const TOKEN = 'browser-views-token-0123456789';
let browser: Browser;
let base: string;
let s: Scheduler & { prefix: string };
let release: () => void = () => {};
const closers: Array<() => Promise<void>> = [];
const queue = 'shop';
let seeded: Awaited<ReturnType<typeof seed>>;

// Registered before useRedis's, so it runs first: the held worker is let go before its scheduler
// closes (close() would otherwise wait its full 30 s for the handler).
afterAll(async () => {
  release();
  for (const close of closers.splice(0).reverse()) await close();
  await browser?.close();
}, TIMEOUT);
const redis = useRedis();

/** A shop queue with 30 ready tasks (one says "needle"), 3 dead, a delayed one, a worker holding one, schedules and a group at its limit. */
async function seed() {
  const dead: string[] = [];
  for (const n of [1, 2, 3]) {
    dead.push((await s.put({ order: `ORD-dead-${n}`, customer: { id: n, email: `customer${n}@example.com` } }, { queue, maxAttempts: 2 })).hash);
    await s.fail((await s.claim({ queue }))!, { error: new Error(`card declined (${n})`), retryIn: 0 });
    await s.fail((await s.claim({ queue }))!, { error: new Error(`card declined again (${n})`) });
  }
  // Put after the dead ones, so their claims above took only those.
  const items = Array.from({ length: 30 }, (_, i) => ({ data: { order: `ORD-${1000 + i}`, note: i === 27 ? 'gift wrap: needle and thread' : 'standard' }, options: { queue } }));
  const ready = (await s.putMany(items)).map((r) => r.hash);
  await s.put({ order: 'ORD-later' }, { queue, delay: 600_000 });
  await s.every('nightly-report', { cron: '0 3 * * *', tz: 'Europe/Berlin' }, { report: 'sales' }, { queue });
  // The parked group lives in its own queue: a claim there parks acme's second task.
  await s.limitGroups(1, { queue: 'tenants' });
  for (const n of [1, 2]) await s.put({ tenant: 'acme', n }, { queue: 'tenants', group: 'acme' });
  await s.claim({ queue: 'tenants', lease: 60_000 });
  await s.claim({ queue: 'tenants', lease: 60_000 });
  // A worker of another process holds one task until the end of the file.
  const other = await redis.scheduler({ prefix: s.prefix });
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = (await other.put({ order: 'ORD-held' }, { queue: 'held' })).hash;
  const worker: Worker = other.work(() => gate, { queue: 'held' });
  closers.push(() => worker.close());
  await eventually(async () => (await s.stats({ queue: 'held' })).active === 1);
  return { ready, dead, held };
}

beforeAll(async () => {
  browser = await launchChromium();
  s = await redis.scheduler();
  seeded = await seed();
  const served = await serveDashboard(s, { token: TOKEN });
  closers.push(served.close);
  base = new URL(served.url).origin;
}, TIMEOUT);

/** A page carrying the token's cookie, recording script errors and CSP refusals. */
async function open(path: string, width = 1280): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => void (msg.type() === 'error' && errors.push(msg.text())));
  page.on('pageerror', (err) => void errors.push(err.message));
  page.on('dialog', (dialog) => void dialog.accept());
  page.on('close', () => void context.close());
  await page.goto(`${base}${path}${path.includes('?') ? '&' : '?'}token=${TOKEN}`);
  return { page, errors };
}

/** How a page fits its viewport: how far it sticks out sideways, and for each table whether it scrolls to its last column. */
interface Fit {
  overflow: number;
  tables: Array<{ scrolls: boolean; reached: boolean }>;
}

/**
 * Run in the page (a string: the test's TypeScript has no DOM types): scrolls each table's
 * container to its far right, and checks the last cell of the last row is then within it, and the
 * container within the viewport.
 */
const FIT = `(() => {
  const width = document.documentElement.clientWidth;
  const tables = [...document.querySelectorAll('main table')].map((table) => {
    const box = table.closest('.scroll');
    if (box === null) return { scrolls: false, reached: false };
    box.scrollLeft = box.scrollWidth;
    const last = table.querySelector('tr:last-child > :last-child') || table;
    const edge = box.getBoundingClientRect().right;
    return { scrolls: getComputedStyle(box).overflowX === 'auto', reached: last.getBoundingClientRect().right <= edge + 1 && edge <= width + 1 };
  });
  return { overflow: document.documentElement.scrollWidth - width, tables };
})()`;

/** Where the 390-px screenshot of view `name` goes (a test artifact, for a person to look at). */
function path390(name: string): string {
  const dir = process.env.DOCKET_ARTIFACTS ?? join(tmpdir(), 'docket-artifacts');
  mkdirSync(dir, { recursive: true });
  return join(dir, `dashboard-390-${name}.png`);
}

function rows(page: Page): Promise<string[]> {
  return page.$$eval('table.list tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-hash')!));
}

describe('dashboard views in a browser', () => {
  it(
    'opens the ready list from the overview, pages to the next page, and searches by text and by hash',
    async () => {
      const { page, errors } = await open(`/?queue=${queue}`);
      // Every time of the page is in one zone, named: the live refresh's too.
      await page.waitForSelector('#live[data-state="live"] .text:has-text("updated")', { timeout: 15_000 });
      await expect(page.locator('header .zone').textContent()).resolves.toBe('times in UTC');
      await expect(page.locator('#live .text').textContent()).resolves.toMatch(/^live · updated \d\d:\d\d:\d\d UTC$/);
      // The overview shows the first ready tasks; its tab opens all of them.
      expect(await page.locator('[data-fragment="ready"] tr[data-hash]').count()).toBe(20);
      await page.locator('nav.tabs a[data-tab="ready"]').click();
      await page.waitForURL(/\/tasks\?queue=shop&state=ready$/);
      const order = (await s.list('ready', { queue, limit: 100 })).tasks.map((t) => t.hash);
      expect(await rows(page)).toEqual(order.slice(0, 20));
      await page.locator('a[rel="next"]').first().click();
      await page.waitForURL(/offset=20/);
      expect(await rows(page)).toEqual(order.slice(20));
      await expect(page.locator('[data-range]').first().textContent()).resolves.toBe(`21–${order.length} of ${order.length}`);

      await page.locator('input[name="q"]').fill('NEEDLE');
      await page.locator('input[name="q"]').press('Enter');
      await page.waitForURL(/q=NEEDLE/);
      expect(await rows(page)).toEqual([seeded.ready[27]]);
      await expect(page.locator('[data-search-note]').textContent()).resolves.toContain(`names of all ${order.length} ready tasks`);
      await page.locator('input[name="q"]').fill(seeded.ready[3]);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(new RegExp(`q=${seeded.ready[3]}`));
      expect(await rows(page)).toEqual([seeded.ready[3]]);
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'opens a dead task’s page with its whole payload and history, and re-drives it there',
    async () => {
      const { page, errors } = await open(`/tasks?queue=${queue}&state=dead`);
      const hash = seeded.dead[0];
      await page.locator(`a[data-task="${hash}"]`).click();
      await page.waitForURL(/\/task\?/);
      await expect(page.locator('[data-payload]').textContent()).resolves.toBe(JSON.stringify({ customer: { email: 'customer1@example.com', id: 1 }, order: 'ORD-dead-1' }, null, 2));
      await expect(page.locator('table.history tr[data-event]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-event')))).resolves.toEqual(['dead', 'failed']);
      await expect(page.locator('table.history').textContent()).resolves.toContain('card declined (1)');
      await page.getByRole('button', { name: 'Re-drive' }).click();
      await page.locator('#toast.show', { hasText: 'Task sent back to ready' }).waitFor();
      // The page reads itself again: the task is ready now, and only a dead task has Re-drive.
      await page.locator('.state.ready').first().waitFor({ timeout: 10_000 });
      expect(await page.getByRole('button', { name: 'Re-drive' }).count()).toBe(0);
      expect((await s.get(hash, { queue }))?.state).toBe('ready');
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    're-drives every dead task from the dead list',
    async () => {
      const { page, errors } = await open(`/tasks?queue=${queue}&state=dead`);
      const before = (await s.stats({ queue })).dead;
      expect(before).toBeGreaterThan(0);
      await page.getByRole('button', { name: 'Re-drive all' }).click();
      await page.locator('#toast.show', { hasText: 'Dead tasks sent back to ready' }).waitFor();
      await page.locator('p.empty', { hasText: 'No dead tasks.' }).waitFor({ timeout: 10_000 });
      expect((await s.stats({ queue })).dead).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'shows the schedules with their next run, the live workers with what each holds, and the groups with their parked tasks',
    async () => {
      const { page, errors } = await open(`/?queue=${queue}`);
      await page.locator('nav.tabs a[data-tab="schedules"]').click();
      const schedule = page.locator('tr[data-schedule="nightly-report"]');
      await expect(schedule.locator('td').first().textContent()).resolves.toBe('0 3 * * * (Europe/Berlin)');
      await expect(schedule.locator('[data-next]').textContent()).resolves.toMatch(/^\d{4}-\d\d-\d\d \d\d:00:00 UTC \(in /);

      await page.goto(`${base}/workers?queue=held`);
      const worker = page.locator('tr[data-worker]');
      expect(await worker.count()).toBe(1);
      await expect(worker.textContent()).resolves.toContain('alive');
      await worker.locator(`a[data-task="${seeded.held}"]`).click();
      await page.waitForURL(/\/task\?/);
      await expect(
        page
          .locator('dd', { hasText: /:\d+:[0-9a-f]{8}$/ })
          .first()
          .textContent(),
      ).resolves.toMatch(/:\d+:[0-9a-f]{8}$/);

      await page.goto(`${base}/groups?queue=tenants`);
      const acme = page.locator('tr[data-group="acme"]');
      await expect(acme.locator('[data-active]').textContent()).resolves.toBe('1');
      await expect(acme.locator('[data-parked]').textContent()).resolves.toBe('1');
      await acme.locator('a[data-task]').click();
      await page.waitForURL(/\/task\?queue=tenants/);
      await expect(page.locator('[data-payload]').textContent()).resolves.toContain('"n": 2');
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'asks for the token on the 401 page and opens the page asked for once it is given',
    async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const res = await page.goto(`${base}/tasks?queue=${queue}&state=ready`);
      expect(res?.status()).toBe(401);
      await page.locator('input[name="token"]').fill(TOKEN);
      await page.getByRole('button', { name: 'Open the dashboard' }).click();
      await page.waitForURL(`${base}/tasks?queue=${queue}&state=ready`);
      expect(await page.locator('table.list tbody tr').count()).toBeGreaterThan(0);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    'fits every view in 390 px: nothing sticks out of the page, and each table scrolls sideways to its last column',
    async () => {
      // A task with a history (its failed attempts), so its page has a table too.
      const hash = seeded.dead[1];
      const views: Array<[string, string]> = [
        ['overview', `/?queue=${queue}`],
        ['ready', `/tasks?queue=${queue}&state=ready`],
        ['delayed', `/tasks?queue=${queue}&state=delayed`],
        ['task', `/task?queue=${queue}&hash=${hash}`],
        ['schedules', `/schedules?queue=${queue}`],
        ['workers', '/workers?queue=held'],
        ['groups', '/groups?queue=tenants'],
      ];
      for (const [name, path] of views) {
        const { page, errors } = await open(path, 390);
        await page.waitForLoadState('load');
        await page.screenshot({ path: path390(name), fullPage: true, animations: 'disabled' });
        const fit = await page.evaluate<Fit>(FIT);
        expect([path, fit.overflow]).toEqual([path, 0]);
        expect([path, fit.tables.length > 0]).toEqual([path, true]);
        for (const t of fit.tables) expect([path, t]).toEqual([path, { scrolls: true, reached: true }]);
        expect(errors).toEqual([]);
        await page.close();
      }
    },
    TIMEOUT,
  );
});
