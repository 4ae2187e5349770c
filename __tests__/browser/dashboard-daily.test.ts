/**
 * The dashboard's everyday actions, clicked in a real browser (Debian's chromium, driven by
 * playwright-core): a priority change and a run-now as one click each with their toasts, adding a
 * task (its JSON data checked in the page before it is sent, the answer saying added or duplicate)
 * and duplicating one from its page, progress as a bar, the log box opened at its newest line, the
 * throughput chart's 24-hour span from the per-minute counters, a scheduled task saying which
 * schedule put it, and at 390 px every row's buttons on screen without scrolling sideways.
 */
import type { Scheduler } from '../../lib';
import type { Page } from 'playwright-core';
import { sleep } from '../support/harness';
import { TIMEOUT, useDashboardPages } from './support/pages';

const TOKEN = 'browser-daily-token-0123456789';
const lab = useDashboardPages(TOKEN);
const { open } = lab;
let base: string;
let s: Scheduler & { prefix: string };
beforeAll(() => {
  s = lab.scheduler();
  base = lab.base();
});

/** Polls `read` until it gives `expected` (compared as JSON), then checks it once more for a readable diff. */
async function settle<T>(read: () => Promise<T>, expected: T, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < end) {
    await sleep(50);
    last = await read();
  }
  expect(last).toEqual(expected);
}

async function live(page: Page): Promise<void> {
  await page.waitForSelector('#live[data-state="live"] .text:has-text("updated")', { timeout: 15_000 });
}

describe('the dashboard for every day, in a browser', () => {
  it(
    'changes a task’s priority and runs a delayed task now, one click each, with a toast',
    async () => {
      const queue = 'daily-rows';
      const ready = await s.put({ job: 'ready one' }, { queue });
      const delayed = await s.put({ job: 'later one' }, { queue, delay: 3_600_000 });
      const { page, errors } = await open(`/?queue=${queue}`);
      await live(page);

      // One choice: picking the level posts it (the Set button is for script off, hidden here).
      const row = page.locator(`[data-fragment="ready"] tr[data-hash="${ready.hash}"]`);
      await expect(row.locator('form[data-action="priority"] button').isVisible()).resolves.toBe(false);
      await row.locator(`select[data-priority="${ready.hash}"]`).selectOption('5');
      await page.locator('#toast.show', { hasText: 'Priority set to 5' }).waitFor();
      await settle(async () => (await s.get(ready.hash, { queue }))?.level, 5);
      await page.locator(`[data-fragment="ready"] tr[data-hash="${ready.hash}"] .tag`, { hasText: 'priority 5' }).waitFor();

      // Run now: a delayed task's run-at becomes the Redis clock's now.
      const delayedRow = page.locator(`[data-fragment="timeline"] tr[data-hash="${delayed.hash}"]`);
      await delayedRow.getByRole('button', { name: 'Run now' }).click();
      await page.locator('#toast.show', { hasText: 'Task runs now' }).waitFor();
      const now = await s.time();
      const runAt = (await s.get(delayed.hash, { queue }))!.runAt;
      expect(runAt).toBeLessThanOrEqual(now);
      expect(runAt).toBeGreaterThan(now - 60_000);
      // Due now, it is ready at once (reschedule.lua): the refresh moves its row to the ready list.
      await settle(async () => (await s.get(delayed.hash, { queue }))?.state, 'ready');
      await page.locator(`[data-fragment="ready"] tr[data-hash="${delayed.hash}"]`).waitFor();
      await page.locator(`[data-fragment="timeline"] tr[data-hash="${delayed.hash}"]`).waitFor({ state: 'detached' });
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'adds a task from the form, refusing data that is not JSON before sending it, and says added or duplicate',
    async () => {
      const queue = 'daily-add';
      await s.put({ job: 'first' }, { queue });
      const { page, errors, posts } = await open(`/add?queue=${queue}`);
      await page.locator('input[name="name"]').fill('welcome');
      await page.locator('textarea[name="data"]').fill('{"to": "ada@example.com",}');
      await page.locator('input[name="delay"]').fill('60000');
      await page.locator('form.add select[name="priority"]').selectOption('3');
      await page.getByRole('button', { name: 'Add task' }).click();
      await page.locator('[data-json-error]', { hasText: 'data: not valid JSON' }).waitFor();
      await page.locator('#toast.show.error', { hasText: 'not valid JSON' }).waitFor();
      expect(await page.locator('textarea[name="data"]').getAttribute('aria-invalid')).toBe('true');
      // Nothing was sent, so nothing was put.
      expect(posts).toEqual([]);
      expect((await s.stats({ queue })).delayed).toBe(0);

      await page.locator('textarea[name="data"]').fill('{"to": "ada@example.com"}');
      await expect(page.locator('[data-json-error]').textContent()).resolves.toBe('');
      await page.getByRole('button', { name: 'Add task' }).click();
      await page.locator('#toast.show', { hasText: 'Task added' }).waitFor();
      const link = page.locator('[data-result] a[data-added="added"]');
      await link.waitFor();
      const hash = (await link.textContent())!;
      const task = (await s.get(hash, { queue }))!;
      expect({ data: task.data, name: task.name, level: task.level, state: task.state }).toEqual({ data: { to: 'ada@example.com' }, name: 'welcome', level: 3, state: 'delayed' });
      expect(posts).toEqual(['/api/add']);

      // The same again: de-dup finds the task queued, and the answer says so.
      await page.getByRole('button', { name: 'Add task' }).click();
      await page.locator('#toast.show', { hasText: 'Duplicate: an equal task is already queued' }).waitFor();
      await page.locator('[data-result] a[data-added="duplicate"]').waitFor();
      expect((await s.stats({ queue })).delayed).toBe(1);
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'duplicates a task from its page: the form comes pre-filled with its data and options',
    async () => {
      const queue = 'daily-dup';
      const original = await s.put({ order: 'ORD-7', lines: [1, 2] }, { queue, name: 'invoice', priority: 4, group: 'acme', maxAttempts: 7, delay: 600_000 });
      const { page, errors } = await open(`/task?queue=${queue}&hash=${original.hash}`);
      await page.locator(`a[data-duplicate="${original.hash}"]`).click();
      await page.waitForURL(/\/add\?/);
      const data = await page.locator('textarea[name="data"]').inputValue();
      expect(JSON.parse(data)).toEqual({ order: 'ORD-7', lines: [1, 2] });
      await expect(page.locator('input[name="name"]').inputValue()).resolves.toBe('invoice');
      await expect(page.locator('form.add select[name="priority"]').inputValue()).resolves.toBe('4');
      await expect(page.locator('input[name="group"]').inputValue()).resolves.toBe('acme');
      await expect(page.locator('input[name="maxAttempts"]').inputValue()).resolves.toBe('7');
      // Sent as it is, it is the same task, still queued: a duplicate.
      await page.getByRole('button', { name: 'Add the copy' }).click();
      await page.locator('#toast.show', { hasText: 'Duplicate' }).waitFor();
      // Changed a little, it is a new task with the same options.
      await page.locator('textarea[name="data"]').fill(data.replace('ORD-7', 'ORD-8'));
      await page.getByRole('button', { name: 'Add the copy' }).click();
      await page.locator('#toast.show', { hasText: 'Task added' }).waitFor();
      const hash = (await page.locator('[data-result] a[data-added="added"]').textContent())!;
      const copy = (await s.get(hash, { queue }))!;
      expect({ data: copy.data, name: copy.name, level: copy.level, group: copy.group, maxAttempts: copy.maxAttempts }).toEqual({
        data: { order: 'ORD-8', lines: [1, 2] },
        name: 'invoice',
        level: 4,
        group: 'acme',
        maxAttempts: 7,
      });
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'shows progress as a bar, opens the log at its newest line, and names the schedule that put a task',
    async () => {
      const queue = 'daily-progress';
      const a = await s.put({ job: 'numbers' }, { queue });
      const b = await s.put({ job: 'percent' }, { queue });
      const c = await s.put({ job: 'words' }, { queue });
      const ta = (await s.claim({ queue, lease: 60_000 }))!;
      const tb = (await s.claim({ queue, lease: 60_000 }))!;
      const tc = (await s.claim({ queue, lease: 60_000 }))!;
      expect([ta.hash, tb.hash, tc.hash]).toEqual([a.hash, b.hash, c.hash]);
      await s.progress(ta, 42);
      await s.progress(tb, { percent: 75, step: 'upload' });
      await s.progress(tc, { step: 'thinking' });
      for (let i = 1; i <= 40; i++) await s.log(ta, `line ${i} of the log`);
      await s.schedule('hourly-digest', { hours: 1 }, { digest: true }, { queue, taskName: 'digest' });
      const put = (await s.runScheduleNow('hourly-digest', { queue }))!;

      const { page, errors } = await open(`/?queue=${queue}`);
      await live(page);
      const bar = (hash: string) => page.locator(`[data-fragment="active"] tr[data-hash="${hash}"] progress`);
      await expect(bar(a.hash).getAttribute('value')).resolves.toBe('42');
      await expect(bar(b.hash).getAttribute('value')).resolves.toBe('75');
      expect(await bar(c.hash).count()).toBe(0);
      await expect(page.locator(`[data-fragment="active"] tr[data-hash="${c.hash}"] td.progress code`).textContent()).resolves.toContain('thinking');
      const tag = page.locator(`[data-fragment="ready"] tr[data-hash="${put.hash}"] [data-from-schedule="hourly-digest"]`);
      await expect(tag.textContent()).resolves.toContain('hourly-digest');

      await page.goto(`${base}/task?queue=${queue}&hash=${a.hash}`);
      await expect(page.locator('dd progress').getAttribute('value')).resolves.toBe('42');
      const box = await page.locator('ol.logs').evaluate((el) => ({ top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight }));
      expect(box.height).toBeGreaterThan(box.client);
      expect(box.top + box.client).toBeGreaterThanOrEqual(box.height - 2);
      await expect(page.locator('ol.logs li').last().textContent()).resolves.toContain('line 40 of the log');

      await page.goto(`${base}/task?queue=${queue}&hash=${put.hash}`);
      await expect(page.locator('dd [data-from-schedule="hourly-digest"]').textContent()).resolves.toContain('put by schedule hourly-digest');
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'switches the throughput chart to the last 24 hours, per minute, from the per-minute counters',
    async () => {
      const queue = 'daily-chart';
      for (let i = 0; i < 4; i++) await s.put({ i }, { queue, maxAttempts: 1 });
      for (let i = 0; i < 3; i++) await s.ack((await s.claim({ queue }))!);
      await s.fail((await s.claim({ queue }))!, { error: 'boom' });
      const { page, errors } = await open(`/?queue=${queue}`);
      await live(page);
      await expect(page.locator('svg.chart').getAttribute('data-chart-span')).resolves.toBe('10m');
      await page.locator('a[data-span="24h"]').click();
      await page.waitForURL(/span=24h/);
      await live(page);
      const chart = page.locator('svg.chart');
      await expect(chart.getAttribute('data-chart-span')).resolves.toBe('24h');
      await expect(chart.getAttribute('data-buckets')).resolves.toBe('1440');
      await expect(page.locator('[data-fragment="chart"] h2 .sub').textContent()).resolves.toContain('per-minute counters');
      await expect(page.locator('[data-total="completed"]').textContent()).resolves.toBe('3');
      await expect(page.locator('[data-total="dead"]').textContent()).resolves.toBe('1');
      expect(await chart.locator('path.completed').count()).toBe(1);
      // A refresh keeps the span.
      const painted = await page.getAttribute('#docket', 'data-now');
      await page.waitForSelector(`#docket:not([data-now="${painted}"])`, { state: 'attached', timeout: 15_000 });
      await expect(chart.getAttribute('data-chart-span')).resolves.toBe('24h');
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'at 390 px, every row’s buttons are on screen without scrolling sideways, and a click there works',
    async () => {
      const queue = 'daily-narrow';
      await s.put({ to: 'dead@example.com' }, { queue, maxAttempts: 1 });
      await s.fail((await s.claim({ queue }))!, { error: new Error('SMTPError: 550 mailbox unavailable') });
      const pending = await s.put({ to: 'someone-with-a-long-address@example.com', template: 'welcome', locale: 'en-GB' }, { queue, name: 'welcome-mail', priority: 2 });
      await s.put({ to: 'later@example.com', template: 'reminder' }, { queue, delay: 600_000 });
      const paths = [
        `/?queue=${queue}`,
        `/tasks?queue=${queue}&state=ready`,
        `/tasks?queue=${queue}&state=delayed`,
        `/tasks?queue=${queue}&state=dead`,
        `/task?queue=${queue}&hash=${pending.hash}`,
      ];
      for (const path of paths) {
        const { page, errors } = await open(path, 390);
        await page.waitForLoadState('load');
        // Every button and button-link of a row or of the task page's actions, with each scroll box at its start.
        const placed = await page.evaluate(`(() => {
          document.querySelectorAll('.scroll').forEach((box) => { box.scrollLeft = 0; });
          const width = document.documentElement.clientWidth;
          const controls = [...document.querySelectorAll('main tr .actions button, main tr .actions a.btn, main tr .actions select, main .actions.start button, main .actions.start a.btn, main .actions.start select')]
            .filter((el) => el.getClientRects().length > 0);
          return {
            width,
            overflow: document.documentElement.scrollWidth - width,
            count: controls.length,
            outside: controls.filter((el) => { const r = el.getBoundingClientRect(); return r.left < 0 || r.right > width + 0.5; }).map((el) => el.textContent || el.tagName),
          };
        })()`);
        expect([path, placed]).toEqual([path, { width: 390, overflow: 0, count: expect.any(Number), outside: [] }]);
        expect([path, (placed as { count: number }).count > 0]).toEqual([path, true]);
        expect(errors).toEqual([]);
        await page.close();
      }
      // A click at that width does what it says: the ready task's priority, then its cancel.
      const { page, errors } = await open(`/tasks?queue=${queue}&state=ready`, 390);
      await page.locator(`select[data-priority="${pending.hash}"]`).selectOption('7');
      await page.locator('#toast.show', { hasText: 'Priority set to 7' }).waitFor();
      await settle(async () => (await s.get(pending.hash, { queue }))?.level, 7);
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );
});
