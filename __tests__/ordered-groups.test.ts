/**
 * Ordered groups (orderGroups(true, { queue })): each group's tasks run one at a time in put order;
 * a failed task keeps its group's head while it waits for its retry (also snoozed, or back after
 * its lease lapsed); a dead one lets the group go on, or with holdOnDead holds it until redriven,
 * cancelled or purged; other groups never wait, and the fair turn between groups holds.
 */
import { ValidationError, type Task } from '../lib';
import { eventually, keysUnder, sleep, useRedis } from './support/harness';

const redis = useRedis();

const names = (tasks: Task<unknown>[]) => tasks.map((t) => t.data as string).sort();

describe('orderGroups', () => {
  it('keeps put order per group under concurrency > 1, one task of a group at a time', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    const groups = ['a', 'b', 'c'];
    for (let i = 0; i < 12; i++) for (const g of groups) await s.put({ g, i }, { group: g });
    const started: Record<string, number[]> = { a: [], b: [], c: [] };
    const running: Record<string, number> = { a: 0, b: 0, c: 0 };
    let overlap = 0;
    let failedOnce = false;
    const worker = s.work(
      async (task) => {
        const { g, i } = task.data as { g: string; i: number };
        if (++running[g] > 1) overlap++;
        started[g].push(i);
        await sleep(5);
        running[g]--;
        // One failure on the way: its retry still comes before the rest of its group.
        if (g === 'b' && i === 3 && !failedOnce) {
          failedOnce = true;
          throw new Error('once');
        }
      },
      { concurrency: 8, backoff: () => 50 },
    );
    await eventually(() => groups.every((g) => started[g].filter((i, k, all) => all.indexOf(i) === k).length === 12), 10_000);
    await worker.close();
    expect(overlap).toBe(0);
    expect(started.a).toEqual([...Array(12).keys()]);
    expect(started.c).toEqual([...Array(12).keys()]);
    expect(started.b).toEqual([0, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it("runs a parked task before its group's later task that waits at the same fair round", async () => {
    // The T21 case, made certain: a1 parks behind a0; a2 is put later, and another group's task
    // b0 at the same fair tag as a2 moves the round onto that tag. Claims break a tie of tags by
    // id, so the ids are chosen for a2 to win a tie against a1 and lose one against b0: a1 must
    // still come back ahead of a2.
    const s = await redis.scheduler();
    await s.orderGroups(true);
    const idOf = async (data: string) => (await s.put(data, { queue: 'ids' })).hash;
    const pick = async (prefix: string, fits: (id: string) => boolean) => {
      for (let i = 0; ; i++) if (fits(await idOf(`${prefix}${i}`))) return `${prefix}${i}`;
    };
    const a1 = await pick('a1-', () => true);
    const a1Id = await idOf(a1);
    const a2 = await pick('a2-', (id) => id < a1Id);
    const a2Id = await idOf(a2);
    const b0 = await pick('b0-', (id) => id < a2Id);
    await s.put('a0', { group: 'a' });
    await s.put(a1, { group: 'a' });
    const a0 = (await s.claim())!;
    expect(a0.data).toBe('a0');
    // a1 is taken out of the fair queue and parked behind a0: nothing else is ready.
    expect(await s.claim()).toBeNull();
    await s.put(a2, { group: 'a' });
    await s.put(b0, { group: 'b' });
    expect((await s.claim())!.data).toBe(b0);
    await s.ack(a0);
    expect((await s.claim())!.data).toBe(a1);
  });

  it('keeps a failed head at the front of its group during its retry back-off, while other groups run', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    for (const d of ['a0', 'a1', 'a2']) await s.put(d, { group: 'a' });
    for (const d of ['b0', 'b1']) await s.put(d, { group: 'b' });
    const first = await s.claimMany(10);
    expect(names(first)).toEqual(['a0', 'b0']);
    const a0 = first.find((t) => t.data === 'a0')!;
    expect(await s.fail(a0, { error: new Error('boom'), retryIn: 400 })).toBe('retry');
    await s.ack(first.find((t) => t.data === 'b0')!);
    // a1 is ready, but a0 holds the head: only b goes on.
    expect(names(await s.claimMany(10))).toEqual(['b1']);
    expect(await s.claimMany(10)).toEqual([]);
    let again: Task<unknown> | null = null;
    await eventually(async () => (again = await s.claim()) !== null);
    expect(again!.data).toBe('a0');
    expect(again!.attempt).toBe(2);
    expect(await s.claimMany(10)).toEqual([]);
    await s.ack(again!);
    expect(names(await s.claimMany(10))).toEqual(['a1']);
    // groupLimits() shows the active tasks, not the setting's fields.
    expect(await s.groupLimits()).toEqual({ default: null, groups: {}, active: { a: 1, b: 1 }, paused: [] });
  });

  it('a group head that fails while the next task is due: the head runs again first', async () => {
    const s = await redis.scheduler();
    // Claims from other connections, so the fail, the put and the claims truly race.
    const others = [await redis.scheduler({ prefix: s.prefix }), await redis.scheduler({ prefix: s.prefix })];
    await s.orderGroups(true);
    for (let round = 0; round < 20; round++) {
      const g = `g${round}`;
      await s.put(`${g}-0`, { group: g });
      const head = (await s.claim())!;
      expect(head.data).toBe(`${g}-0`);
      // The next task becomes due right as the head fails (run-at now, put during the fail), and
      // claims race both: the head, retried at once, must come first, whatever interleaving.
      const claims = others.flatMap((o) => [o.claimMany(5), o.claimMany(5)]);
      const [, outcome, ...claimed] = await Promise.all([others[round % 2].put(`${g}-1`, { group: g }), s.fail(head, { error: new Error('x'), retryIn: 0 }), ...claims]);
      expect(outcome).toBe('retry');
      const got = claimed.flat().concat(await s.claimMany(5));
      expect(got.map((t) => t.data)).toEqual([`${g}-0`]);
      expect(await s.ack(got[0])).toBe(true);
      const next = await s.claimMany(5);
      expect(next.map((t) => t.data)).toEqual([`${g}-1`]);
      expect(await s.ack(next[0])).toBe(true);
    }
  });

  it('holds the head while it is snoozed, and when its lease lapsed and it went back', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    for (const d of ['a0', 'a1']) await s.put(d, { group: 'a' });
    const a0 = (await s.claim({ lease: 150 }))!;
    await sleep(250);
    // The lease lapsed: a0 goes back ahead of a1.
    const back = (await s.claim())!;
    expect(back.data).toBe('a0');
    expect(await s.snooze(back, 300)).toBe(true);
    expect(await s.claimMany(5)).toEqual([]);
    expect(await s.ack(a0)).toBe(false);
    let again: Task<unknown> | null = null;
    await eventually(async () => (again = await s.claim()) !== null);
    expect(again!.data).toBe('a0');
    await s.ack(again!);
    expect((await s.claimMany(5)).map((t) => t.data)).toEqual(['a1']);
  });

  it('lets the group go on when its head dies', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    await s.put('a0', { group: 'a', maxAttempts: 1 });
    await s.put('a1', { group: 'a' });
    expect(await s.fail((await s.claim())!, { error: new Error('fatal') })).toBe('dead');
    expect((await s.claimMany(5)).map((t) => t.data)).toEqual(['a1']);
  });

  it('with holdOnDead, holds the group behind its dead head until it is redriven, cancelled or purged', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true, { holdOnDead: true });
    const a0 = await s.put('a0', { group: 'a', maxAttempts: 1 });
    await s.put('a1', { group: 'a' });
    await s.put('b0', { group: 'b' });
    const first = await s.claimMany(5);
    expect(names(first)).toEqual(['a0', 'b0']);
    expect(
      await s.fail(
        first.find((t) => t.data === 'a0')!,
        { error: new Error('fatal') },
      ),
    ).toBe('dead');
    await s.put('b1', { group: 'b' });
    await s.ack(first.find((t) => t.data === 'b0')!);
    expect(names(await s.claimMany(5))).toEqual(['b1']);
    // Redriven: it runs again first, then the group goes on.
    expect(await s.redrive(a0.hash)).toBe(true);
    const again = (await s.claim())!;
    expect(again.data).toBe('a0');
    await s.ack(again);
    const a1 = (await s.claim())!;
    expect(a1.data).toBe('a1');

    // Cancelled: the group goes on.
    const a2 = await s.put('a2', { group: 'a', maxAttempts: 1 });
    await s.put('a3', { group: 'a' });
    await s.ack(a1);
    expect(await s.fail((await s.claim())!, { error: new Error('fatal') })).toBe('dead');
    expect(await s.claimMany(5)).toEqual([]);
    expect(await s.cancel(a2.hash)).toBe(true);
    const a3 = (await s.claim())!;
    expect(a3.data).toBe('a3');

    // Purged: the group goes on.
    await s.put('a4', { group: 'a', maxAttempts: 1 });
    await s.put('a5', { group: 'a' });
    await s.ack(a3);
    expect(await s.fail((await s.claim())!, { error: new Error('fatal') })).toBe('dead');
    expect(await s.claimMany(5)).toEqual([]);
    expect(await s.purgeDead()).toBe(1);
    expect((await s.claimMany(5)).map((t) => t.data)).toEqual(['a5']);
  });

  it("brings a paused group's held head back first on resume, and holds with a group limit set", async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    await s.limitGroups(5);
    for (const d of ['a0', 'a1', 'a2']) await s.put(d, { group: 'a' });
    expect(await s.fail((await s.claim())!, { error: new Error('x'), retryIn: 100 })).toBe('retry');
    await s.pause({ group: 'a' });
    await sleep(150);
    // Due again while paused: parked, ahead of the rest of its group.
    expect(await s.claimMany(5)).toEqual([]);
    await s.limitGroups(null);
    expect(await s.claimMany(5)).toEqual([]);
    await s.resume({ group: 'a' });
    const order: string[] = [];
    for (let t = await s.claim(); t; t = await s.claim()) {
      order.push(t.data as string);
      expect(await s.claimMany(5)).toEqual([]);
      await s.ack(t);
    }
    expect(order).toEqual(['a0', 'a1', 'a2']);
  });

  it('lets a held group go on when its dead head is trimmed or not kept, or its waiting head expires', async () => {
    const s = await redis.scheduler({ deadMaxCount: 1 });
    await s.orderGroups(true, { holdOnDead: true });
    await s.put('a0', { group: 'a', maxAttempts: 1 });
    await s.put('a1', { group: 'a' });
    await s.put('x0', { group: 'x', maxAttempts: 1 });
    const first = await s.claimMany(5);
    const [a0, x0] = ['a0', 'x0'].map((d) => first.find((t) => t.data === d)!);
    expect(await s.fail(a0, { error: new Error('fatal') })).toBe('dead');
    expect(await s.claimMany(5)).toEqual([]);
    await sleep(3); // distinct death times: deaths in one millisecond tie in the dead set, broken by hash
    // A second death trims the oldest past deadMaxCount 1: a0 goes, and its group with it.
    expect(await s.fail(x0, { error: new Error('fatal') })).toBe('dead');
    const a1 = (await s.claim())!;
    expect(a1.data).toBe('a1');
    await s.ack(a1);

    // A dead head its own caps do not keep (put's keep: { dead: false }): the group goes on.
    await s.put('c0', { group: 'c', maxAttempts: 1, keep: { dead: false } });
    await s.put('c1', { group: 'c' });
    // (claimMany parks c1 behind c0: only the release brings it back.)
    const [c0] = await s.claimMany(5);
    expect(await s.fail(c0, { error: new Error('fatal') })).toBe('dead');
    expect((await s.claimMany(5)).map((t) => t.data)).toEqual(['c1']);

    // A head waiting for its retry expires unclaimed: the group goes on.
    await s.put('b0', { group: 'b', expire: 150 });
    await s.put('b1', { group: 'b' });
    expect(await s.fail((await s.claim())!, { error: new Error('x'), retryIn: 300 })).toBe('retry');
    expect(await s.claimMany(5)).toEqual([]);
    let next: Task<unknown> | null = null;
    await eventually(async () => (next = await s.claim()) !== null);
    expect(next!.data).toBe('b1');
  });

  it('keeps put order in a group held back by its rate limit', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    await s.limitRate({ max: 2, per: 200, group: 'a' });
    for (let i = 0; i < 6; i++) await s.put(`a${i}`, { group: 'a' });
    const order: string[] = [];
    while (order.length < 6) {
      const [t, ...rest] = await s.claimMany(5);
      expect(rest).toEqual([]);
      if (t) {
        order.push(t.data as string);
        await s.ack(t);
      } else await sleep(20);
    }
    expect(order).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('keeps the fair turn between ordered groups', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    for (let i = 0; i < 3; i++) for (const g of ['a', 'b', 'c']) await s.put(`${g}${i}`, { group: g });
    for (let i = 0; i < 3; i++) {
      const round = await s.claimMany(10);
      expect(names(round)).toEqual([`a${i}`, `b${i}`, `c${i}`]);
      for (const t of round) await s.ack(t);
    }
    // One group alone: one task a claim, in order, however many asked for.
    for (let i = 0; i < 3; i++) await s.put(`d${i}`, { group: 'd' });
    for (let i = 0; i < 3; i++) {
      const [t, ...rest] = await s.claimMany(10);
      expect([t.data, rest]).toEqual([`d${i}`, []]);
      await s.ack(t);
    }
  });

  it('off again: releases the holds, and the groups run as before', async () => {
    const s = await redis.scheduler();
    const q = s.queue('ordered');
    await q.orderGroups(true);
    for (const d of ['a0', 'a1', 'a2']) await q.put(d, { group: 'a' });
    const a0 = (await s.claim({ queue: 'ordered' }))!;
    expect(await s.fail(a0, { error: new Error('x'), retryIn: 60_000 })).toBe('retry');
    expect(await s.claimMany(5, { queue: 'ordered' })).toEqual([]);
    await q.orderGroups(false);
    expect(names(await s.claimMany(5, { queue: 'ordered' }))).toEqual(['a1', 'a2']);
    expect(await s.groupLimits({ queue: 'ordered' })).toEqual({ default: null, groups: {}, active: { a: 2 }, paused: [] });
  });

  it('refuses bad input with a typed error naming the field, writing nothing', async () => {
    const s = await redis.scheduler();
    await expect(s.orderGroups('yes' as never)).rejects.toThrow(ValidationError);
    await expect(s.orderGroups(true, { holdOnDead: 1 } as never)).rejects.toThrow(/holdOnDead/);
    await expect(s.orderGroups(true, { queu: 'x' } as never)).rejects.toThrow(ValidationError);
    await expect(s.queue('q').orderGroups(true, { queue: 'other' })).rejects.toThrow(/queue/);
    expect((await keysUnder(await redis.raw(), s.prefix)).filter((k) => k.endsWith('glimits'))).toEqual([]);
  });
});
