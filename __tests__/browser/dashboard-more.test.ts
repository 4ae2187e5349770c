/**
 * The dashboard actions the other browser tests leave out, clicked in a real browser (Debian's
 * chromium, driven by playwright-core), each checked in Redis through the scheduler's API and not
 * only on the page: the Done tab (newest first, its search by payload text and by hash, a task's
 * page, Run again saying added and, while that run is live, duplicate), a schedule's Pause, Resume
 * and Run now, Cancel on a running task, a group's Pause and Resume on the Groups tab, and a dead
 * task's page saying it ended unrecoverable.
 */
import { UnrecoverableError, type Scheduler } from '../../lib';
import type { Page } from 'playwright-core';
import { sleep } from '../support/harness';
import { TIMEOUT, useDashboardPages } from './support/pages';

const TOKEN = 'browser-more-token-0123456789';
const lab = useDashboardPages(TOKEN);
const { open } = lab;
let s: Scheduler & { prefix: string };
beforeAll(() => {
  s = lab.scheduler();
});

/**
 * A page other than the overview reads itself again whole ~700 ms after an action's toast: waits
 * for that reload, so what the page shows next is what Redis holds after the action.
 */
async function reloaded(page: Page, act: () => Promise<void>): Promise<void> {
  const navigated = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout: 15_000 });
  await act();
  await navigated;
  await page.waitForLoadState('load');
}

/** The hashes of a list page's rows, in the order shown. */
async function rows(page: Page): Promise<string[]> {
  return page.locator('table.list tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-hash') ?? ''));
}

describe('the dashboard’s remaining actions, in a browser', () => {
  it(
    'lists done tasks newest first, finds one by its payload and by its hash, opens its page, and runs it again: added, then duplicate while that run is live',
    async () => {
      const queue = 'more-done';
      // The history is off by default: keep() turns the done list on.
      await s.keep({ queue, done: {} });
      const hashes: string[] = [];
      for (const order of ['ORD-501', 'ORD-502', 'ORD-503']) {
        hashes.push((await s.put({ order, lines: 2 }, { queue, name: 'invoice' })).hash);
        await s.ack((await s.claim({ queue }))!, { sent: order });
        // Finished in distinct milliseconds, so "newest first" has one answer.
        await sleep(5);
      }
      const [first, second, third] = hashes;
      expect((await s.list('done', { queue })).tasks.map((t) => t.hash)).toEqual([third, second, first]);

      const { page, errors, posts } = await open(`/?queue=${queue}`);
      await page.locator('nav.tabs a[data-tab="done"]').click();
      await page.waitForURL(/\/tasks\?.*state=done/);
      expect(await rows(page)).toEqual([third, second, first]);
      await expect(page.locator(`tr[data-hash="${third}"] td.result`).textContent()).resolves.toContain('ORD-503');

      // Text in a payload finds that task only.
      await page.locator('form.find input[name="q"]').fill('ord-502');
      await page.locator('form.find').getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/q=ord-502/);
      expect(await rows(page)).toEqual([second]);
      // Its hash finds it exactly, and the page says so.
      await page.locator('form.find input[name="q"]').fill(first);
      await page.locator('form.find').getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(new RegExp(`q=${first}`));
      expect(await rows(page)).toEqual([first]);
      await expect(page.locator('[data-search-note]').textContent()).resolves.toContain('A task has this hash exactly');

      // A second person has the done list open from before the run again: their page is stale.
      const stale = await open(`/tasks?queue=${queue}&state=done`);
      await stale.page.locator(`tr[data-hash="${first}"]`).waitFor();

      await page.locator(`a[data-task="${first}"]`).click();
      await page.waitForURL(/\/task\?/);
      await page.locator(`[data-task-page="${first}"] .state.done`).first().waitFor();
      await expect(page.locator('[data-payload]').textContent()).resolves.toContain('ORD-501');
      await reloaded(page, async () => {
        await page.locator('.actions.start').getByRole('button', { name: 'Run again' }).click();
        await page.locator('#toast.show', { hasText: 'Task added' }).waitFor();
      });
      // A new run of the same data and options: ready; the done run stays in the history as a row of
      // its own (each run is one), and get() answers the new run.
      const again = (await s.get(first, { queue }))!;
      expect({ state: again.state, data: again.data, name: again.name, attempts: again.attempts }).toEqual({
        state: 'ready',
        data: { order: 'ORD-501', lines: 2 },
        name: 'invoice',
        attempts: 0,
      });
      expect((await s.list('done', { queue })).tasks.map((t) => t.hash)).toEqual([third, second, first]);
      expect((await s.stats({ queue })).ready).toBe(1);
      // Its page, read again, shows the new run.
      await page.locator(`[data-task-page="${first}"] .state.ready`).first().waitFor();

      // The stale page's Run again, while that run is live: a duplicate, nothing added.
      await stale.page.locator(`tr[data-hash="${first}"]`).getByRole('button', { name: 'Run again' }).click();
      await stale.page.locator('#toast.show', { hasText: 'Duplicate: an equal task is already queued' }).waitFor();
      expect((await s.stats({ queue })).ready).toBe(1);
      expect((await s.list('ready', { queue })).tasks.map((t) => t.hash)).toEqual([first]);
      expect(posts).toEqual(['/api/run-again']);
      expect(stale.posts).toEqual(['/api/run-again']);
      expect(errors).toEqual([]);
      expect(stale.errors).toEqual([]);
      await stale.page.close();
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'pauses a schedule, resumes it, and runs it now: an occurrence put, ready, naming its schedule',
    async () => {
      const queue = 'more-schedules';
      await s.schedule('daily-digest', { days: 1 }, { digest: 'daily' }, { queue, taskName: 'digest' });
      const paused = async () => (await s.listSchedules({ queue })).map((info) => [info.name, info.paused]);
      expect(await paused()).toEqual([['daily-digest', false]]);

      const { page, errors, posts } = await open(`/schedules?queue=${queue}`);
      const row = page.locator('tr[data-schedule="daily-digest"]');
      await reloaded(page, async () => {
        await row.getByRole('button', { name: 'Pause' }).click();
        await page.locator('#toast.show', { hasText: 'Schedule paused' }).waitFor();
      });
      expect(await paused()).toEqual([['daily-digest', true]]);
      await expect(row.locator('[data-next]').textContent()).resolves.toBe('paused');

      await reloaded(page, async () => {
        await row.getByRole('button', { name: 'Resume' }).click();
        await page.locator('#toast.show', { hasText: 'Schedule resumed' }).waitFor();
      });
      expect(await paused()).toEqual([['daily-digest', false]]);
      await row.getByRole('button', { name: 'Pause' }).waitFor();

      expect((await s.list('ready', { queue })).total).toBe(0);
      await reloaded(page, async () => {
        await row.getByRole('button', { name: 'Run now' }).click();
        await page.locator('#toast.show', { hasText: 'Task added' }).waitFor();
      });
      const ready = (await s.list('ready', { queue })).tasks;
      expect(ready.map((t) => ({ schedule: t.schedule, name: t.name, data: t.data }))).toEqual([{ schedule: 'daily-digest', name: 'digest', data: { digest: 'daily' } }]);
      expect(posts).toEqual(['/api/pause-schedule', '/api/resume-schedule', '/api/run-schedule']);
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'cancels a running task from its row: the holder’s token is gone, so its ack and fail are refused',
    async () => {
      const queue = 'more-cancel';
      const { hash } = await s.put({ export: 'customers.csv' }, { queue });
      // Held by a claim() caller, with a lease long enough that it cannot lapse during the test.
      const task = (await s.claim({ queue, lease: 60_000 }))!;
      expect(task.hash).toBe(hash);

      // The Active tab: each row has its Cancel (the overview's active section has no buttons).
      const { page, errors, posts } = await open(`/tasks?queue=${queue}&state=active`);
      const row = page.locator(`table.list tr[data-hash="${hash}"]`);
      await reloaded(page, async () => {
        await row.getByRole('button', { name: 'Cancel' }).click();
        await page.locator('#toast.show', { hasText: 'Running task cancelled' }).waitFor();
      });
      expect(posts).toEqual(['/api/cancel']);
      // The holder's late calls change nothing (cancel-running.test.ts): its handler would abort at
      // its next beat, and a claim() caller never beats, so the task stays active until its lease lapses.
      expect(await s.progress(task, 50)).toBe(false);
      expect(await s.fail(task, { error: new Error('late') })).toBe('lost');
      expect(await s.ack(task, 'late result')).toBe(false);
      expect(await s.result(hash, { queue })).toMatchObject({ state: 'active', attempts: 1 });
      expect((await s.stats({ queue })).totals).toMatchObject({ completed: 0, failed: 0 });
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'pauses one group on the Groups tab and resumes it; the queue itself runs on',
    async () => {
      const queue = 'more-groups';
      await s.put({ tenant: 'acme', n: 1 }, { queue, group: 'acme' });
      await s.put({ tenant: 'acme', n: 2 }, { queue, group: 'acme' });
      await s.put({ tenant: 'globex', n: 1 }, { queue, group: 'globex' });
      // One of acme's active, so the tab lists the group.
      expect((await s.claim({ queue, lease: 60_000 }))!.data).toEqual({ tenant: 'acme', n: 1 });
      const groups = async () => {
        const [stats, limits] = await Promise.all([s.stats({ queue }), s.groupLimits({ queue })]);
        return { queuePaused: stats.paused, pausedGroups: stats.pausedGroups, paused: limits.paused };
      };
      expect(await groups()).toEqual({ queuePaused: false, pausedGroups: [], paused: [] });

      const { page, errors, posts } = await open(`/groups?queue=${queue}`);
      const acme = page.locator('tr[data-group="acme"]');
      await reloaded(page, async () => {
        await acme.getByRole('button', { name: 'Pause' }).click();
        await page.locator('#toast.show', { hasText: 'Group paused' }).waitFor();
      });
      expect(await groups()).toEqual({ queuePaused: false, pausedGroups: ['acme'], paused: ['acme'] });
      await acme.locator('[data-paused]').waitFor();
      // Paused, acme's ready task stays put; globex's is claimed.
      const next = (await s.claim({ queue, lease: 60_000 }))!;
      expect(next.data).toEqual({ tenant: 'globex', n: 1 });
      expect(await s.claim({ queue })).toBeNull();

      await reloaded(page, async () => {
        await acme.getByRole('button', { name: 'Resume' }).click();
        await page.locator('#toast.show', { hasText: 'Group resumed' }).waitFor();
      });
      expect(await groups()).toEqual({ queuePaused: false, pausedGroups: [], paused: [] });
      expect(await acme.locator('[data-paused]').count()).toBe(0);
      expect((await s.claim({ queue, lease: 60_000 }))!.data).toEqual({ tenant: 'acme', n: 2 });
      expect(posts).toEqual(['/api/pause', '/api/resume']);
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    'shows on a dead task’s page that it ended unrecoverable, with attempts left',
    async () => {
      const queue = 'more-ending';
      const { hash } = await s.put({ card: '4000-0000-0000-0002' }, { queue, maxAttempts: 5 });
      const task = (await s.claim({ queue }))!;
      expect(await s.fail(task, { error: new UnrecoverableError('card number is invalid') })).toBe('dead');
      const dead = (await s.get(hash, { queue }))!;
      expect({ state: dead.state, ending: dead.ending, attempts: dead.attempts }).toEqual({ state: 'dead', ending: 'unrecoverable', attempts: 1 });

      const { page, errors } = await open(`/tasks?queue=${queue}&state=dead`);
      await page.locator(`a[data-task="${hash}"]`).click();
      await page.waitForURL(/\/task\?/);
      const ending = page.locator('[data-ending]');
      await expect(ending.getAttribute('data-ending')).resolves.toBe('unrecoverable');
      await expect(ending.textContent()).resolves.toContain('Its last attempt ended: unrecoverable');
      await expect(page.locator('dd pre.value.error').first().textContent()).resolves.toContain('card number is invalid');
      await expect(page.locator('dd', { hasText: /of 5$/ }).first().textContent()).resolves.toBe('1 of 5');
      expect(errors).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );
});
