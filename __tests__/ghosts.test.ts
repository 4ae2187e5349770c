/**
 * A claim finds a ready task behind any number of ghosts (the entries a cancel, changePriority,
 * reschedule or replacing put leaves in a ready list: include: levels) and behind any number of
 * grouped tasks it parks: one claim script does bounded work, says when it stopped early, and
 * claim() calls again at once (docs/guarantees.md, "A claim returns a ready task when there is one").
 */
import type { Scheduler } from '../lib';
import { useRedis } from './support/harness';

const redis = useRedis();

/** Puts `n` tasks in `queue` (1,000 a putMany) with `options`; their hashes, in put order. */
async function putN(s: Scheduler, queue: string, n: number, tag: string, options: object = {}): Promise<string[]> {
  const hashes: string[] = [];
  for (let i = 0; i < n; i += 1000) {
    const put = await s.putMany(Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({ data: { [tag]: i + j }, options: { queue, ...options } })));
    hashes.push(...put.map((r) => r.hash));
  }
  return hashes;
}

/** Cancels `hashes` of `queue`, 500 at a time. */
async function cancelAll(s: Scheduler, queue: string, hashes: string[]): Promise<void> {
  for (let i = 0; i < hashes.length; i += 500) await Promise.all(hashes.slice(i, i + 500).map((h) => s.cancel(h, { queue })));
}

describe('a claim behind ghosts (a claim returns a ready task when there is one)', () => {
  it('returns the task behind 5,000 cancelled entries, in one claim()', async () => {
    const s = await redis.scheduler();
    const queue = 'ghosts-cancel';
    const gone = await putN(s, queue, 5000, 'gone');
    const [kept] = await putN(s, queue, 1, 'kept');
    await cancelAll(s, queue, gone);
    const task = await s.claim({ queue });
    expect(task?.hash).toBe(kept);
    expect(await s.ack(task!)).toBe(true);
    expect(await s.claim({ queue })).toBeNull();
    expect(await s.stats({ queue })).toMatchObject({ ready: 0, active: 0 });
  });

  it('returns the task behind the ghosts of 20,000 changePriority flips, in one claim() per task', async () => {
    const s = await redis.scheduler();
    const queue = 'ghosts-flips';
    const [flipped] = await putN(s, queue, 1, 'flipped');
    const [plain] = await putN(s, queue, 1, 'plain');
    // Each flip leaves the task's entry behind in the list it leaves: 10,000 in each.
    for (let i = 0; i < 20_000; i += 1000) {
      await Promise.all(Array.from({ length: 1000 }, (_, j) => s.changePriority(flipped, (i + j) % 2 === 0 ? 3 : 0, { queue })));
    }
    expect((await s.get(flipped, { queue }))!.level).toBe(0);
    const first = await s.claim({ queue });
    const second = await s.claim({ queue });
    expect([first?.hash, second?.hash]).toEqual([plain, flipped]);
    expect(await s.claim({ queue })).toBeNull();
  });

  it('takes up to the count asked from behind ghosts with claimMany, in put order', async () => {
    const s = await redis.scheduler();
    const queue = 'ghosts-many';
    const gone = await putN(s, queue, 3000, 'gone');
    const kept = await putN(s, queue, 5, 'kept');
    await cancelAll(s, queue, gone);
    const tasks = await s.claimMany(10, { queue });
    expect(tasks.map((t) => t.hash)).toEqual(kept);
  });

  it('returns a free group’s task behind 2,500 tasks of groups at their limit, which it parks', async () => {
    const s = await redis.scheduler();
    const queue = 'ghosts-groups';
    await s.limitGroups(1, { queue });
    // 2,500 groups, each with one task running and one more waiting behind it.
    const groups = Array.from({ length: 2500 }, (_, i) => `g${i}`);
    for (let i = 0; i < groups.length; i += 500) {
      await s.putMany(groups.slice(i, i + 500).map((group) => ({ data: { group, n: 1 }, options: { queue, group } })));
    }
    const running = [];
    for (let i = 0; i < groups.length; i += 1000) running.push(...(await s.claimMany(1000, { queue })));
    expect(running).toHaveLength(2500);
    for (let i = 0; i < groups.length; i += 500) {
      await s.putMany(groups.slice(i, i + 500).map((group) => ({ data: { group, n: 2 }, options: { queue, group } })));
    }
    const free = await s.put({ free: true }, { queue, group: 'free' });
    const task = await s.claim({ queue });
    expect(task?.hash).toBe(free.hash);
    expect(await s.stats({ queue })).toMatchObject({ ready: 2500, active: 2501 });
  });
});
