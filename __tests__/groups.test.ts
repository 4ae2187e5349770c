/**
 * Fair scheduling across groups (tenants): claims take from the groups of a queue in turn, so one
 * group's backlog cannot hold up another's tasks; order and priority hold within a group; a
 * group's limit caps its active tasks across every worker.
 */
import { ValidationError, type Task } from '../lib';
import { eventually, keysUnder, sleep, useRedis } from './support/harness';

const redis = useRedis();

describe('groups', () => {
  it("runs a small group's tasks within one turn each, behind a group with a 10,000-task backlog", async () => {
    const s = await redis.scheduler();
    const big = Array.from({ length: 10_000 }, (_, i) => ({ data: { g: 'A', i }, options: { group: 'A' } }));
    for (let i = 0; i < big.length; i += 1000) await s.putMany(big.slice(i, i + 1000));
    await s.putMany(Array.from({ length: 100 }, (_, i) => ({ data: { g: 'B', i }, options: { group: 'B' } })));
    let doneB = 0;
    let claims = 0;
    while (doneB < 100 && claims < 250) {
      const task = (await s.claim())!;
      claims++;
      if ((task.data as { g: string }).g === 'B') doneB++;
      expect(await s.ack(task)).toBe(true);
    }
    expect(doneB).toBe(100);
    expect(claims).toBeLessThanOrEqual(250);
  });

  it("tells a handler its task's group (task.group), and null for a task without one", async () => {
    const s = await redis.scheduler();
    await s.put('a', { group: 'tenant-a' });
    await s.put('plain');
    const seen: Record<string, string | null> = {};
    const worker = s.work(async (task) => void (seen[task.data as string] = task.group));
    await eventually(() => Object.keys(seen).length === 2);
    await worker.close();
    expect(seen).toEqual({ a: 'tenant-a', plain: null });
  });

  it('keeps put order within a group, and takes one task per group per round', async () => {
    const s = await redis.scheduler();
    for (const [data, group] of [
      ['a1', 'a'],
      ['a2', 'a'],
      ['a3', 'a'],
      ['b1', 'b'],
      ['c1', 'c'],
      ['b2', 'b'],
    ])
      await s.put(data, { group });
    const order = (await s.claimMany(6)).map((t) => t.data as string);
    // Round by round: each group with tasks waiting gives one (in any order within the round).
    expect(order.slice(0, 3).sort()).toEqual(['a1', 'b1', 'c1']);
    expect(order.slice(3, 5).sort()).toEqual(['a2', 'b2']);
    expect(order[5]).toBe('a3');
  });

  it('tags the tasks of one putMany call as it would tag them one by one', async () => {
    const s = await redis.scheduler();
    await s.putMany([
      { data: 'a1', options: { group: 'a' } },
      { data: 'a2', options: { group: 'a' } },
      { data: 'b1', options: { group: 'b' } },
      { data: 'a-urgent', options: { group: 'a', priority: 3 } },
      { data: 'a3', options: { group: 'a' } },
    ]);
    const order = (await s.claimMany(5)).map((t) => t.data as string);
    // Round 1: a1, b1 and a's priority lane; round 2: a2; round 3: a3.
    expect(order.slice(0, 3).sort()).toEqual(['a-urgent', 'a1', 'b1']);
    expect(order.slice(3)).toEqual(['a2', 'a3']);
  });

  it("lets a group's priority tasks go ahead of its own backlog", async () => {
    const s = await redis.scheduler();
    for (let i = 0; i < 5; i++) await s.put(`a${i}`, { group: 'a' });
    await s.put('a-urgent', { group: 'a', priority: true });
    expect((await s.claimMany(2)).map((t) => t.data)).toEqual(['a0', 'a-urgent']);
  });

  it("delays, reschedules, cancels and counts grouped tasks, and drops a group's state once its tasks ran", async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const later = await s.put('later', { group: 'a', delay: 100 });
    const gone = await s.put('gone', { group: 'b' });
    const moved = await s.put('moved', { group: 'c' });
    expect(await s.stats()).toMatchObject({ ready: 2, delayed: 1 });
    expect(await s.get(gone.hash)).toMatchObject({ state: 'ready', group: 'b' });
    expect(await s.cancel(gone.hash)).toBe(true);
    expect(await s.reschedule(moved.hash, Date.now() + 60_000)).toBe(true);
    expect(await s.stats()).toMatchObject({ ready: 0, delayed: 2 });
    await sleep(150);
    const task = (await s.claim())!;
    expect(task.hash).toBe(later.hash);
    expect(await s.ack(task)).toBe(true);
    // A group whose tasks ran leaves nothing behind ('b' lost its task to cancel, 'c' waits).
    expect(Object.keys(await raw.hGetAll(`${s.prefix}:{default}:gtags`)).sort()).toEqual(['', 'b', 'c']);
    expect(await keysUnder(raw, s.prefix)).not.toContain(`${s.prefix}:{default}:grouped`);
  });

  it('refuses a bad group name and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await expect(s.put('x', { group: '' })).rejects.toThrow(ValidationError);
    await expect(s.put('x', { group: 'a|b' })).rejects.toThrow('options.group: must have no |');
    await expect(s.put('x', { group: 7 as never })).rejects.toThrow('options.group: expected a string');
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});

describe('group limits', () => {
  const dataOf = (tasks: Task[]) => tasks.map((t) => t.data as string);
  const putAll = async (s: Awaited<ReturnType<typeof redis.scheduler>>, group: string, n: number, tag = group) => {
    for (let i = 0; i < n; i++) await s.put(`${tag}${i}`, { group });
  };

  it('leases at most the limit of a group, takes its next task in order when one finishes, and counts parked tasks as ready', async () => {
    const s = await redis.scheduler();
    await s.limitGroups(2, { group: 'a' });
    await putAll(s, 'a', 6);
    await putAll(s, 'b', 3);
    const first = await s.claimMany(20);
    expect(dataOf(first).sort()).toEqual(['a0', 'a1', 'b0', 'b1', 'b2']);
    expect(await s.stats()).toMatchObject({ ready: 4, active: 5 });
    expect(await s.groupLimits()).toEqual({ default: null, groups: { a: 2 }, active: { a: 2, b: 3 }, paused: [] });
    // Nothing more of a while both places are taken.
    expect(await s.claimMany(20)).toEqual([]);
    expect(await s.ack(first.find((t) => t.data === 'a0')!)).toBe(true);
    expect(dataOf(await s.claimMany(20))).toEqual(['a2']);
    expect(
      await s.fail(
        first.find((t) => t.data === 'a1')!,
        { retryIn: 0 },
      ),
    ).toBe('retry');
    // a1 is retried behind a's backlog (its lane's tail); a3 takes the place first.
    expect(dataOf(await s.claimMany(20))).toEqual(['a3']);
    expect(await s.groupLimits()).toEqual({ default: null, groups: { a: 2 }, active: { a: 2, b: 3 }, paused: [] });
  });

  it("gives a group's own limit precedence, and lets parked tasks go when a limit is raised or removed", async () => {
    const s = await redis.scheduler();
    await s.limitGroups(1);
    await s.limitGroups(3, { group: 'big' });
    await putAll(s, 'big', 6);
    await putAll(s, 'small', 3);
    expect(dataOf(await s.claimMany(20)).sort()).toEqual(['big0', 'big1', 'big2', 'small0']);
    expect(await s.groupLimits()).toMatchObject({ default: 1, groups: { big: 3 } });
    await s.limitGroups(2);
    expect(dataOf(await s.claimMany(20))).toEqual(['small1']);
    await s.limitGroups(null);
    await s.limitGroups(null, { group: 'big' });
    expect(dataOf(await s.claimMany(20)).sort()).toEqual(['big3', 'big4', 'big5', 'small2']);
    expect(await s.groupLimits()).toEqual({ default: null, groups: {}, active: { big: 6, small: 3 }, paused: [] });
  });

  it('never runs more than the limit of a group at once across workers, and runs every task', async () => {
    const s = await redis.scheduler();
    const limits: Record<string, number> = { a: 2, b: 3 };
    await s.limitGroups(2);
    await s.limitGroups(3, { group: 'b' });
    const running: Record<string, number> = { a: 0, b: 0, c: 0 };
    const most: Record<string, number> = { a: 0, b: 0, c: 0 };
    let done = 0;
    const handler = async (task: Task) => {
      const g = (task.data as string)[0];
      running[g]++;
      most[g] = Math.max(most[g], running[g]);
      await sleep(5);
      running[g]--;
      done++;
    };
    await s.putMany(['a', 'b', 'c'].flatMap((g) => Array.from({ length: 40 }, (_, i) => ({ data: `${g}${i}`, options: { group: g } }))));
    await s.limitGroups(6, { group: 'c' });
    const workers = [s.work(handler, { concurrency: 8 }), s.work(handler, { concurrency: 8 })];
    await eventually(() => done === 120, 20_000);
    await Promise.all(workers.map((w) => w.close()));
    expect(most.a).toBeLessThanOrEqual(limits.a);
    expect(most.b).toBeLessThanOrEqual(limits.b);
    expect(most.c).toBeLessThanOrEqual(6);
    // The limits were reached, so they were what held the groups back.
    expect(most.a).toBe(2);
    expect(await s.stats()).toMatchObject({ ready: 0, active: 0, delayed: 0 });
    expect(await s.groupLimits()).toMatchObject({ active: {} });
  });

  it('gives the place of a lapsed lease to the group again', async () => {
    const s = await redis.scheduler();
    await s.limitGroups(1);
    await putAll(s, 'a', 3);
    const [a0] = await s.claimMany(5, { lease: 100 });
    expect(a0.data).toBe('a0');
    await sleep(150);
    // The lapsed a0 is queued again behind a1; a1 has the one place.
    expect(dataOf(await s.claimMany(5))).toEqual(['a1']);
    expect(await s.groupLimits()).toMatchObject({ active: { a: 1 } });
  });

  it('gives the place of a task handed back at shutdown to that same task', async () => {
    const s = await redis.scheduler();
    await s.limitGroups(1);
    await putAll(s, 'a', 2);
    let started = 0;
    const worker = s.work((_task, signal) => {
      started++;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    });
    await eventually(() => started === 1);
    await worker.close({ timeout: 20 });
    expect(await s.groupLimits()).toMatchObject({ active: {} });
    // a0 was handed back to the head of its group, a1 still waits behind it.
    expect(dataOf(await s.claimMany(5))).toEqual(['a0']);
    expect(started).toBe(1);
  });

  it('hands the place of a cancelled or rescheduled task on, so a group never stalls', async () => {
    const s = await redis.scheduler();
    await s.limitGroups(1);
    const [h0, h1, h2, h3] = await Promise.all(['x0', 'x1', 'x2', 'x3'].map((d) => s.put(d, { group: 'x' })));
    const [x0] = await s.claimMany(5);
    expect(x0.hash).toBe(h0.hash);
    // x1..x3 are parked. Cancel one parked, then finish x0: x1 comes back and is cancelled too.
    expect(await s.cancel(h2.hash)).toBe(true);
    expect(await s.ack(x0)).toBe(true);
    expect(await s.reschedule(h1.hash, Date.now() + 60_000)).toBe(true);
    expect(dataOf(await s.claimMany(5))).toEqual(['x3']);
    expect(await s.get(h1.hash)).toMatchObject({ state: 'delayed' });
    expect(await s.stats()).toMatchObject({ ready: 0, delayed: 1, active: 1 });
    expect(h3.added).toBe(true);
  });

  it('leaves no group state behind once the tasks ran', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.limitGroups(1, { group: 'a' });
    await putAll(s, 'a', 3);
    for (let i = 0; i < 3; i++) {
      const [task] = await s.claimMany(5);
      expect(task.data).toBe(`a${i}`);
      expect(await s.ack(task)).toBe(true);
    }
    await s.limitGroups(null, { group: 'a' });
    const left = await keysUnder(raw, s.prefix);
    for (const suffix of ['parked', 'gactive', 'glimits', 'grouped']) expect(left).not.toContain(`${s.prefix}:{default}:${suffix}`);
  });

  it('refuses a bad limit or group and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await expect(s.limitGroups(0)).rejects.toThrow(ValidationError);
    await expect(s.limitGroups(1.5)).rejects.toThrow('limit: expected null or a whole number from 1 to 100000');
    await expect(s.limitGroups(undefined as never)).rejects.toThrow('limit: expected null or a whole number');
    await expect(s.limitGroups(2, { group: 'a|b' })).rejects.toThrow('options.group: must have no |');
    await expect(s.limitGroups(2, { groups: 'a' } as never)).rejects.toThrow('options.groups');
    await expect(s.groupLimits({ queue: '' })).rejects.toThrow(ValidationError);
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});
