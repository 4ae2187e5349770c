/**
 * Ordered groups (orderGroups(true)) through the paths that delete a group's held head (issue 41):
 * a clean of it by each state it may wait in, a trim of the dead set by another task's own
 * `keep: { dead }` caps, its expiry, and its queue's obliterate. Each must let the group go on at once, in put order: the
 * tasks it held back run next, before a task of the group put afterwards. (Cancel, purge and the
 * claims' trim: ordered-groups.test.ts; random sequences of every path:
 * ordered-groups-property.test.ts.)
 */
import type { Scheduler, Task } from '../lib';
import { queueKeys } from '../lib/domain/keys';
import { sleep, useRedis } from './support/harness';

const redis = useRedis();

/** Claims one task at a time until none comes, acking each: what ran, in order. */
async function drain(s: Scheduler): Promise<string[]> {
  const order: string[] = [];
  for (let t = await s.claim(); t; t = await s.claim()) {
    order.push(t.data as string);
    // One of a group at a time: nothing else of it while t runs.
    expect(await s.claimMany(5)).toEqual([]);
    await s.ack(t);
  }
  return order;
}

/** Puts a0 (held back by nothing yet), a1 and a2 in group a; leases a0, and parks a1 and a2 behind it. */
async function groupWithLeasedHead(s: Scheduler, head: { maxAttempts?: number; expire?: number } = {}): Promise<Task<unknown>> {
  await s.put('a0', { group: 'a', ...head });
  await s.put('a1', { group: 'a' });
  await s.put('a2', { group: 'a' });
  const a0 = (await s.claim())!;
  expect(a0.data).toBe('a0');
  expect(await s.claimMany(5)).toEqual([]);
  return a0;
}

/** As groupWithLeasedHead in a queue with holdOnDead, a0 dying: it holds its group, dead. */
async function groupWithDeadHead(s: Scheduler): Promise<Task<unknown>> {
  await s.orderGroups(true, { holdOnDead: true });
  const a0 = await groupWithLeasedHead(s, { maxAttempts: 1 });
  expect(await s.fail(a0, { error: new Error('fatal') })).toBe('dead');
  expect(await s.claimMany(5)).toEqual([]);
  return a0;
}

describe('an ordered group whose held head is deleted', () => {
  it('goes on in put order when its dead head (holdOnDead) is cleaned as dead', async () => {
    const s = await redis.scheduler();
    await groupWithDeadHead(s);
    expect(await s.clean({ state: 'dead' })).toBe(1);
    // Put after the clean: it must not overtake the tasks the head held back.
    await s.put('a3', { group: 'a' });
    expect(await drain(s)).toEqual(['a1', 'a2', 'a3']);
  });

  it.each([
    ['waiting for its retry', (s: Scheduler, a0: Task<unknown>) => s.fail(a0, { error: new Error('x'), retryIn: 60_000 }), 'retry'],
    ['snoozed', (s: Scheduler, a0: Task<unknown>) => s.snooze(a0, 60_000), true],
  ] as const)('goes on in put order when its head, %s, is cleaned as delayed', async (_, wait, outcome) => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    const a0 = await groupWithLeasedHead(s);
    expect(await wait(s, a0)).toBe(outcome);
    expect(await s.claimMany(5)).toEqual([]);
    expect(await s.clean({ state: 'delayed' })).toBe(1);
    await s.put('a3', { group: 'a' });
    expect(await drain(s)).toEqual(['a1', 'a2', 'a3']);
  });

  it('goes on in put order when its head, ready again for its retry, is cleaned as ready', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    await s.put('a0', { group: 'a' });
    await sleep(150);
    await s.put('a1', { group: 'a' });
    await s.put('a2', { group: 'a' });
    const a0 = (await s.claim())!;
    expect(await s.claimMany(5)).toEqual([]);
    // Retried at once: ready, ahead of the parked a1 and a2, and no claim has taken it yet.
    expect(await s.fail(a0, { error: new Error('x'), retryIn: 0 })).toBe('retry');
    // Only a0 is old enough: the clean takes the held head alone.
    expect(await s.clean({ state: 'ready', olderThan: 100 })).toBe(1);
    await s.put('a3', { group: 'a' });
    expect(await drain(s)).toEqual(['a1', 'a2', 'a3']);
  });

  it('goes on when its head, parked by its rate, is cleaned as ready, and leaves no entry of a task deleted', async () => {
    // A group held by its rate parks its head first ('!'): the clean's walk of parked tasks drops it,
    // which lets a1 back into the fair queue while a1's parked entry is still in the walk's slice;
    // a1 must go from where it is now, not leave its id there with its record deleted.
    const s = await redis.scheduler();
    await s.orderGroups(true);
    await s.limitRate({ max: 1, per: 300, group: 'a' });
    await s.put('a0', { group: 'a' });
    await s.put('a1', { group: 'a' });
    await sleep(150);
    await s.put('a2', { group: 'a' });
    const a0 = (await s.claim())!;
    expect(await s.claimMany(5)).toEqual([]);
    expect(await s.fail(a0, { error: new Error('x'), retryIn: 0 })).toBe('retry');
    // Due again, but its group has used its rate: parked.
    expect(await s.claimMany(5)).toEqual([]);
    // a0 and a1 are old enough, a2 is not.
    expect(await s.clean({ state: 'ready', olderThan: 100 })).toBe(2);
    expect((await s.stats()).ready).toBe(1);
    await sleep(350);
    expect(await drain(s)).toEqual(['a2']);
  });

  it("goes on when its dead head (holdOnDead) is trimmed by another task's own keep: { dead } cap", async () => {
    const s = await redis.scheduler();
    const a0 = await groupWithDeadHead(s);
    await sleep(3); // distinct death times: deaths in one millisecond tie in the dead set, broken by hash
    // x0 keeps one dead task at its death: a0, the older, goes.
    await s.put('x0', { maxAttempts: 1, keep: { dead: { count: 1 } } });
    expect(await s.fail((await s.claim())!, { error: new Error('fatal') })).toBe('dead');
    expect(await s.get(a0.hash)).toBeNull();
    await s.put('a3', { group: 'a' });
    expect(await drain(s)).toEqual(['a1', 'a2', 'a3']);
  });

  it('goes on in the same claim that drops its head, expired while waiting for its retry', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    const a0 = await groupWithLeasedHead(s, { expire: 3_600_000 });
    expect(await s.fail(a0, { error: new Error('x'), retryIn: 60_000 })).toBe('retry');
    // Due long ago, so past its expiry window (which counts from the run-at): ready, and expired.
    expect(await s.reschedule(a0.hash, Date.now() - 7_200_000)).toBe(true);
    // The claim drops a0 and lets a1 back into the fair queue, which it had already found empty.
    expect((await s.claimMany(5)).map((t) => t.data)).toEqual(['a1']);
  });

  it('runs the parked task an expiry lets back before a later task the same claim popped', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    await s.put('c0', { group: 'c' });
    const c1 = await s.put('c1', { group: 'c', expire: 3_600_000 });
    await s.put('c2', { group: 'c' });
    const c3 = await s.put('c3', { group: 'c' });
    const c0 = (await s.claim())!;
    expect(await s.claimMany(5)).toEqual([]);
    // c0 done: c1, first parked, goes back into the fair queue; then it expires there.
    await s.ack(c0);
    expect(await s.reschedule(c1.hash, Date.now() - 7_200_000)).toBe(true);
    // c3 leaves its parked place and comes back ready at a new tag, behind c1, while c2 stays parked.
    expect(await s.reschedule(c3.hash, Date.now() + 3_600_000)).toBe(true);
    expect(await s.reschedule(c3.hash, Date.now() - 1000)).toBe(true);
    // One claim pops c1 and c3 together: c1's expiry lets c2 back, which must run before c3.
    const [c2, ...rest] = await s.claimMany(5);
    expect([c2?.data, rest]).toEqual(['c2', []]);
    await s.ack(c2);
    expect(await drain(s)).toEqual(['c3']);
  });

  it('is released by orderGroups(true) when its head names a task that is gone', async () => {
    // As an earlier version's clean or trim left a group: the held head's task deleted, the field
    // still naming it, its group's tasks parked. Turning holdOnDead off frees it.
    const s = await redis.scheduler();
    const a0 = await groupWithDeadHead(s);
    const k = queueKeys(s.prefix, 'default');
    const raw = await redis.raw();
    await raw.zRem(k.dead, a0.hash);
    await raw.hDel(k.tasks, a0.hash);
    await s.orderGroups(true);
    expect(await drain(s)).toEqual(['a1', 'a2']);
  });

  it('leaves nothing held once its queue is obliterated with the head leased: the queue starts again in put order', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true, { holdOnDead: true });
    const a0 = await groupWithLeasedHead(s);
    await s.obliterate({ force: true });
    // The old holder's ack finds nothing, and no head of the old queue holds the new one's group.
    expect(await s.ack(a0)).toBe(false);
    await s.orderGroups(true);
    for (const name of ['b0', 'b1', 'b2']) await s.put(name, { group: 'a' });
    expect(await drain(s)).toEqual(['b0', 'b1', 'b2']);
  });
});
