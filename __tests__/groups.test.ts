/**
 * Fair scheduling across groups (tenants): claims take from the groups of a queue in turn, so one
 * group's backlog cannot hold up another's tasks; order and priority hold within a group.
 */
import { ValidationError } from '../lib';
import { keysUnder, sleep, useRedis } from './support/harness';

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

  it('keeps put order within a group, and takes one task per group per round', async () => {
    const s = await redis.scheduler();
    for (const [data, group] of [['a1', 'a'], ['a2', 'a'], ['a3', 'a'], ['b1', 'b'], ['c1', 'c'], ['b2', 'b']]) await s.put(data, { group });
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

  it('delays, reschedules, cancels and counts grouped tasks, and drops a group\'s state once its tasks ran', async () => {
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
