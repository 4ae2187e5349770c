/**
 * Pausing one fair group (pause({ queue, group })): its tasks stay put, keeping their place, while
 * the other groups run; stats() and groupLimits() show it; a limit change does not let its tasks
 * go; resume brings them back in their order.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ValidationError } from '../lib';
import { createDashboard } from '../lib/surfaces/dashboard';
import { cli } from './support/cli';
import { useRedis } from './support/harness';

const redis = useRedis();

describe('pause one group', () => {
  it("leaves a paused group's tasks put while the other groups run, and runs them in their order on resume", async () => {
    const s = await redis.scheduler();
    for (let i = 0; i < 5; i++) await s.put(`a${i}`, { group: 'a' });
    for (let i = 0; i < 3; i++) await s.put(`b${i}`, { group: 'b' });
    expect(await s.pause({ group: 'a' })).toBe(true);
    expect(await s.pause({ group: 'a' })).toBe(false);
    await s.put('a5', { group: 'a' });
    await s.put('plain');
    const taken = (await s.claimMany(20)).map((t) => t.data as string);
    expect(taken.sort()).toEqual(['b0', 'b1', 'b2', 'plain']);
    // Its tasks are ready still, only held: counted so, and listed in stats.
    expect(await s.stats()).toMatchObject({ ready: 6, paused: false, pausedGroups: ['a'] });
    expect(await s.claimMany(20)).toEqual([]);
    expect(await s.resume({ group: 'a' })).toBe(true);
    expect(await s.resume({ group: 'a' })).toBe(false);
    expect((await s.stats()).pausedGroups).toEqual([]);
    const order: string[] = [];
    for (let task = await s.claim(); task; task = await s.claim()) order.push(task.data as string);
    expect(order).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('runs a task parked during the pause before a later one no claim reached, on resume', async () => {
    // a0 is parked by a claim while a is paused; a1, put after it, still waits in the fair queue
    // at its tag when the group resumes: a0 must come back ahead of it, not behind at a new tag.
    const s = await redis.scheduler();
    await s.pause({ group: 'a' });
    await s.put('a0', { group: 'a' });
    expect(await s.claim()).toBeNull();
    await s.put('a1', { group: 'a' });
    await s.resume({ group: 'a' });
    expect((await s.claim())!.data).toBe('a0');
    expect((await s.claim())!.data).toBe('a1');
  });

  it('keeps a paused group paused while its limit changes, and shows it in groupLimits()', async () => {
    const s = await redis.scheduler();
    await s.limitGroups(1, { group: 'a' });
    for (let i = 0; i < 4; i++) await s.put(`a${i}`, { group: 'a' });
    const first = (await s.claim())!;
    expect(first.data).toBe('a0');
    await s.put('b0', { group: 'b' });
    await s.pause({ group: 'a' });
    expect(await s.groupLimits()).toEqual({ default: null, groups: { a: 1 }, active: { a: 1 }, paused: ['a'] });
    // Raising, removing and setting limits again: none lets the paused group's tasks go.
    await s.limitGroups(10, { group: 'a' });
    await s.limitGroups(null, { group: 'a' });
    await s.limitGroups(5);
    expect((await s.claimMany(10)).map((t) => t.data)).toEqual(['b0']);
    // Its running task finishing gives no place to its parked ones either.
    expect(await s.ack(first)).toBe(true);
    await s.limitGroups(null);
    expect(await s.claimMany(10)).toEqual([]);
    expect(await s.groupLimits()).toEqual({ default: null, groups: {}, active: { b: 1 }, paused: ['a'] });
    await s.resume({ group: 'a' });
    expect((await s.claimMany(10)).map((t) => t.data)).toEqual(['a1', 'a2', 'a3']);
    expect((await s.groupLimits()).paused).toEqual([]);
  });

  it("brings back on resume only as many as the group's limit has room for; the rest follow as tasks finish", async () => {
    const s = await redis.scheduler();
    await s.limitGroups(2, { group: 'a' });
    await s.pause({ group: 'a' });
    for (let i = 0; i < 5; i++) await s.put(`a${i}`, { group: 'a' });
    expect(await s.claimMany(10)).toEqual([]);
    await s.resume({ group: 'a' });
    const two = await s.claimMany(10);
    expect(two.map((t) => t.data)).toEqual(['a0', 'a1']);
    expect(await s.claimMany(10)).toEqual([]);
    // Each task that finishes lets the next one go, in order.
    await s.ack(two[0]);
    const third = await s.claimMany(10);
    expect(third.map((t) => t.data)).toEqual(['a2']);
    await s.ack(two[1]);
    expect((await s.claimMany(10)).map((t) => t.data)).toEqual(['a3']);
  });

  it('resumes a long backlog in batches, in its order', async () => {
    const s = await redis.scheduler();
    await s.pause({ group: 'big' });
    const items = Array.from({ length: 2500 }, (_, i) => ({ data: i, options: { group: 'big' } }));
    for (let i = 0; i < items.length; i += 500) await s.putMany(items.slice(i, i + 500));
    // Claims meet the paused group's tasks and set them aside, a bounded number a call.
    for (let i = 0; i < 5; i++) expect(await s.claimMany(10)).toEqual([]);
    await s.resume({ group: 'big' });
    const seen: number[] = [];
    for (let batch = await s.claimMany(500); batch.length > 0; batch = await s.claimMany(500)) seen.push(...batch.map((t) => t.data as number));
    expect(seen).toEqual(items.map((i) => i.data));
  });

  it("pauses and resumes a group from the dashboard's Groups tab", async () => {
    const s = await redis.scheduler();
    await s.put('x', { group: 'tenant' });
    const server = createServer(createDashboard(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = async () => (await fetch(`${base}/groups?queue=default`)).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${base}/?queue=default`)).text())![1];
      const post = (action: string, body: unknown) =>
        fetch(`${base}/api/${action}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(body) });
      // A paused group is listed with its Resume button, and its tasks stay put.
      expect((await post('pause', { queue: 'default', group: 'tenant' })).status).toBe(200);
      expect(await s.claim()).toBeNull();
      const paused = await page();
      expect(paused).toContain('data-paused');
      expect(paused).toContain('<input type="hidden" name="group" value="tenant">');
      expect((await post('pause', { queue: 'default', group: 'a|b' })).status).toBe(400);
      expect((await post('resume', { queue: 'default', group: 'tenant' })).status).toBe(200);
      expect((await s.claim())!.data).toBe('x');
      expect(await page()).not.toContain('data-paused');
    } finally {
      server.close();
    }
  });

  it('checks the group before any I/O, and pauses or resumes one from the CLI', async () => {
    const s = await redis.scheduler();
    await expect(s.pause({ group: 'a|b' })).rejects.toBeInstanceOf(ValidationError);
    await expect(s.resume({ group: '' })).rejects.toThrow(/options\.group/);
    await s.put('x', { group: 'tenant' });
    const paused = await cli(s.prefix, ['pause', 'default', '--group', 'tenant', '--json']);
    expect(paused.code).toBe(0);
    expect(JSON.parse(paused.stdout)).toEqual({ queue: 'default', group: 'tenant', paused: true, changed: true });
    expect(await s.claim()).toBeNull();
    const stats = await cli(s.prefix, ['stats', 'default']);
    expect(stats.stdout).toContain('groups: tenant');
    expect((await cli(s.prefix, ['resume', 'default', '--group', 'tenant'])).stdout).toContain("resumed group 'tenant' of queue 'default'");
    expect((await s.claim())!.data).toBe('x');
  });
});
