/**
 * The dashboard in a real browser (Debian's chromium, driven by playwright-core): the counts a
 * person sees match stats(), a click on "Re-drive" moves a dead task to ready and the page
 * updates in place, and task data never runs as script, on the first paint or after a refresh.
 * Saves a full-page screenshot as a test artifact (and for the docs with DOCKET_DOCS_SCREENSHOT=1).
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Scheduler } from '../../lib';
import { serveDashboard } from '../../lib/surfaces/dashboard';
import { queueKeys } from '../../lib/domain/keys';
import { sleep, useRedis } from '../support/harness';
import { launchChromium, TIMEOUT } from './support/pages';

const redis = useRedis();
let browser: Browser;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  browser = await launchChromium();
}, TIMEOUT);

afterAll(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await browser?.close();
}, TIMEOUT);

/** Polls `read` until it gives `expected` (compared as JSON), then checks it once more for a readable diff. */
async function settle<T>(read: () => Promise<T>, expected: T, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < end) {
    await sleep(50);
    last = await read();
  }
  expect(last).toEqual(expected);
}

/** A page that records script errors and CSP refusals (chromium reports both on the console). */
async function openPage(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const errors: string[] = [];
  page.on('console', (msg) => void (msg.type() === 'error' && errors.push(msg.text())));
  page.on('pageerror', (err) => void errors.push(err.message));
  await page.goto(url);
  // The client's first refresh has landed: its script ran under the CSP and reached the API.
  await page.waitForSelector('#live[data-state="live"] .text:has-text("updated")', { timeout: 15_000 });
  return { page, errors };
}

async function shownCounts(page: Page): Promise<Record<string, number>> {
  return page.$$eval('[data-stat]', (els) => Object.fromEntries(els.map((el) => [el.getAttribute('data-stat'), Number(el.textContent!.replace(/,/g, ''))])));
}

/**
 * Ten minutes of past outcomes in the queue's events stream, so the chart has a history to show.
 * Only for the picture (no assertion reads them); written before any real event, since stream
 * ids must grow.
 */
async function backfillHistory(s: Scheduler & { prefix: string }, queue: string): Promise<void> {
  const raw = await redis.raw();
  const key = queueKeys(s.prefix, queue).events;
  const [seconds] = await raw.sendCommand<[string, string]>(['TIME']);
  const now = Number(seconds) * 1000;
  for (let i = 59; i >= 1; i--) {
    const at = now - i * 10_000;
    const completed = Math.round(9 + 6 * Math.sin(i / 6) + ((i * 7) % 5));
    const failed = i % 9 === 0 ? 3 : i % 4 === 0 ? 1 : 0;
    const types = [...Array(completed).fill('completed'), ...Array(failed).fill('failed'), ...(i % 17 === 0 ? ['dead'] : [])];
    for (const [n, type] of types.entries()) await raw.sendCommand(['XADD', key, `${at + n}-0`, 'type', type, 'id', `h${i}-${n}`]);
  }
}

/** A busy-looking "emails" queue: ready, delayed over the next minutes, two held leases, dead with errors. */
async function seed(s: Scheduler & { prefix: string }) {
  const queue = 'emails';
  await backfillHistory(s, queue);
  const otherWorker = await redis.scheduler({ prefix: s.prefix });
  await s.put({ to: 'grace@example.com', template: 'invoice', invoice: 'INV-2291' }, { queue });
  await s.claim({ queue, lease: 45_000 });
  await s.put({ to: 'linus@example.org', template: 'digest', items: 14 }, { queue });
  await otherWorker.claim({ queue, lease: 30_000 });
  const errors = [
    'SMTPError: 550 5.1.1 <bob@example.net>: mailbox unavailable',
    'TimeoutError: upstream did not answer within 30000 ms\n    at send (/srv/mailer/send.js:42:11)\n    at async work (/srv/mailer/worker.js:17:5)',
    "TypeError: Cannot read properties of undefined (reading 'address')",
  ];
  const dead: string[] = [];
  for (const [i, error] of errors.entries()) {
    const { hash } = await s.put({ to: ['bob@example.net', 'ops@example.com', 'margaret@example.com'][i], template: ['welcome', 'alert', 'reset-password'][i] }, { queue, maxAttempts: 3 });
    for (let attempt = 1; attempt <= 3; attempt++) await s.fail((await s.claim({ queue }))!, { error, retryIn: 0 });
    dead.push(hash);
  }
  for (const [i, name] of ['ada', 'alan', 'barbara', 'edsger', 'frances'].entries()) {
    await s.put({ to: `${name}@example.com`, template: i % 2 ? 'digest' : 'welcome' }, { queue, ...(i === 0 ? { priority: 5 } : {}) });
  }
  for (const [i, delay] of [20_000, 45_000, 70_000, 130_000, 210_000, 240_000, 290_000].entries()) {
    await s.put({ to: `reminder-${i + 1}@example.com`, template: 'reminder', step: i + 1 }, { queue, delay });
  }
  // Two summaries wait on the delayed reminders (one of them on a report in another queue too).
  const reminders = (await s.list('delayed', { queue, limit: 2 })).tasks.map((t) => t.hash);
  const report = await s.put({ report: 'weekly', account: 42 }, { queue: 'reports', delay: 600_000 });
  await s.put({ summary: 'reminders sent', batch: 1 }, { queue, after: reminders });
  await s.put({ summary: 'reminders and report', batch: 2 }, { queue, after: [reminders[0], { queue: 'reports', hash: report.hash }] });
  for (let i = 0; i < 12; i++) await s.put({ report: 'monthly', account: 1000 + i }, { queue: 'reports' });
  await s.put({ report: 'yearly', account: 7 }, { queue: 'reports', delay: 3_600_000 });
  for (let i = 0; i < 3; i++) await s.put({ url: `https://hooks.example.com/${i}`, event: 'order.paid' }, { queue: 'webhooks' });
  await s.pause({ queue: 'webhooks' });
  return { queue, dead };
}

async function screenshot(page: Page): Promise<void> {
  const dir = process.env.DOCKET_ARTIFACTS ?? path.join(os.tmpdir(), 'docket-artifacts');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, 'dashboard.png'), fullPage: true, animations: 'disabled' });
  if (process.env.DOCKET_DOCS_SCREENSHOT === '1') {
    const docs = path.join(__dirname, '..', '..', 'docs', 'images');
    mkdirSync(docs, { recursive: true });
    await page.screenshot({ path: path.join(docs, 'dashboard.png'), fullPage: true, animations: 'disabled' });
  }
}

describe('dashboard in a browser', () => {
  it(
    'shows the counts stats() has, and re-drives a dead task in place',
    async () => {
      const s = await redis.scheduler();
      const { queue, dead } = await seed(s);
      const served = await serveDashboard(s, { token: 'browser-test-token-0123456789' });
      closers.push(served.close);
      // The ?token= link: the page swaps it for a cookie and a clean address.
      const { page, errors } = await openPage(served.url);
      expect(new URL(page.url()).searchParams.has('token')).toBe(false);

      const before = await s.stats({ queue });
      const counts = {
        ready: before.ready,
        delayed: before.delayed,
        waiting: before.waiting,
        active: before.active,
        dead: before.dead,
        expired: before.expired,
        deduplicated: before.deduplicated,
      };
      expect(counts).toMatchObject({ ready: 5, delayed: 7, waiting: 2, active: 2, dead: 3 });
      expect(await shownCounts(page)).toEqual(counts);
      await expect(page.locator('tr[data-queue="webhooks"] .badge').textContent()).resolves.toBe('paused');

      const row = page.locator(`[data-fragment="dead"] tr[data-hash="${dead[0]}"]`);
      await row.getByRole('button', { name: 'Re-drive' }).click();
      await settle(() => shownCounts(page), { ...counts, ready: counts.ready + 1, dead: counts.dead - 1 });
      await settle(async () => (await s.get(dead[0], { queue }))?.state, 'ready');
      await page.locator('#toast.show', { hasText: 'Task sent back to ready' }).waitFor();
      await row.waitFor({ state: 'detached' });
      // It moved to the ready list, which the overview shows too.
      await page.locator(`[data-fragment="ready"] tr[data-hash="${dead[0]}"]`).waitFor();
      await page.locator('#toast.show').waitFor({ state: 'detached' });

      expect(errors).toEqual([]);
      await screenshot(page);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'never runs task data as script, on the first paint or after a live refresh',
    async () => {
      const s = await redis.scheduler();
      const evil = '<img src=x onerror="window.__pwned=1">';
      await s.put({ html: evil }, { queue: 'escape', delay: 60_000 });
      await s.put(`</script><script>window.__pwned=2</script>`, { queue: 'escape', maxAttempts: 1 });
      await s.fail((await s.claim({ queue: 'escape' }))!, { error: new Error(evil) });
      const served = await serveDashboard(s);
      closers.push(served.close);
      const { page, errors } = await openPage(served.url);
      const painted = await page.getAttribute('#docket', 'data-now');
      // Wait for a refresh that swapped fresh sections in (the server's clock moved on).
      await page.waitForSelector(`#docket:not([data-now="${painted}"])`, { state: 'attached', timeout: 15_000 });
      await s.put({ html: `${evil} arrived later` }, { queue: 'escape', delay: 30_000 });
      await page.locator('code.data', { hasText: 'arrived later' }).waitFor({ timeout: 15_000 });

      expect(await page.evaluate('window.__pwned')).toBeUndefined();
      expect(await page.locator('td.error code').first().textContent()).toBe(`Error: ${evil}`);
      expect(await page.locator('img').count()).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );
});
