/**
 * Rate limits: at most `max` claims of a queue in any `per` window (sliding, on the Redis clock),
 * across every worker and process; a limited worker sleeps instead of polling; backoffQueue holds
 * every claim for a span.
 */
import { ValidationError } from '../lib';
import { eventually, keysUnder, serverNow, sleep, useRedis } from './support/harness';
import { clientCommands, monitor } from './support/monitor';
import { startRedis } from './support/redis-server';

const redis = useRedis();

/** The most claims any window of `per` ms holds, from claim times on the Redis clock. */
function busiestWindow(times: number[], per: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= per) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('limitRate', () => {
  it('holds 10 workers of 3 schedulers to max claims per window, at about the full rate', async () => {
    const s = await redis.scheduler();
    const others = await Promise.all([1, 2].map(() => redis.scheduler({ prefix: s.prefix })));
    await s.limitRate({ max: 20, per: 500 });
    expect(await s.rateLimits()).toMatchObject({ queue: { max: 20, per: 500 }, heldUntil: null });
    await s.putMany(Array.from({ length: 400 }, (_, i) => ({ data: i })));
    const claimedAt: number[] = [];
    const lease = 30_000;
    const handler = async (task: { leaseUntil: number }) => void claimedAt.push(task.leaseUntil - lease);
    const all = [s, ...others];
    const workers = Array.from({ length: 10 }, (_, i) => all[i % 3].work(handler, { concurrency: 3, lease }));
    const started = await serverNow(await redis.raw());
    await sleep(3000);
    await Promise.all(workers.map((w) => w.close()));
    const within = claimedAt.filter((t) => t < started + 3000);
    expect(busiestWindow(claimedAt, 500)).toBeLessThanOrEqual(20);
    // 3 s at 20 per 500 ms is 120 claims (the first window starts full): within 10%.
    expect(within.length).toBeGreaterThanOrEqual(108);
    expect(within.length).toBeLessThanOrEqual(140);
  });

  it('lets a limited worker sleep until the next claim is allowed, not poll', async () => {
    // A server of its own: MONITOR sees this test's calls alone.
    const server = await startRedis();
    const s = await redis.scheduler({ url: server.url });
    try {
      await s.limitRate({ max: 1, per: 1000 });
      await s.putMany([1, 2].map((n) => ({ data: n })));
      const runs: number[] = [];
      const watching = monitor(server.port, 3500);
      await sleep(50);
      const w = s.work(async () => void runs.push(Date.now()));
      await eventually(() => runs.length === 2, 3000);
      await w.close();
      expect(runs[1] - runs[0]).toBeGreaterThanOrEqual(950);
      // The claims sent between the two runs (MONITOR's times are the server's: the same machine's
      // clock): the ack with the claim that found no room, the claim a put's wake token may start,
      // and the claim when the window allowed. A worker polling even every 200 ms makes 5.
      const claims = clientCommands(await watching).filter((line) => /"fcall" "docket_\w+_claim"/i.test(line));
      const between = claims.filter((line) => {
        const at = Number(/^\+([\d.]+)/.exec(line)![1]) * 1000;
        return at > runs[0] && at < runs[1];
      });
      expect(between.length).toBeLessThanOrEqual(4);
    } finally {
      await s.close();
      await server.stop();
    }
  });

  it('removes the limit with null, and refuses bad limits naming the field, writing nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const bad: Array<[unknown, string]> = [
      [{ max: 0, per: 1000 }, 'limit.max'],
      [{ max: 5, per: 0 }, 'limit.per'],
      [{ max: 5 }, 'limit.per'],
      [{ max: 5, per: 1000, group: 'a|b' }, 'limit.group'],
      [{ max: 5, per: 1000, group: 'g', eachGroup: true }, 'limit.eachGroup'],
      [{ max: 5, per: 1000, shard: 1 }, 'limit.shard'],
      [{ max: 5, per: 1000, queue: 'a b' }, 'limit.queue'],
      ['fast', 'limit'],
    ];
    for (const [limit, field] of bad) {
      const err = await s.limitRate(limit as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ field });
    }
    await expect(s.backoffQueue('q', -1)).rejects.toMatchObject({ field: 'span' });
    await expect(s.backoffQueue(undefined as never, 10)).rejects.toMatchObject({ field: 'queue' });
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
    await s.limitRate({ max: 5, per: 1000, queue: 'other' });
    expect(await s.rateLimits({ queue: 'other' })).toMatchObject({ queue: { max: 5, per: 1000 } });
    await s.limitRate(null, { queue: 'other' });
    expect(await s.rateLimits({ queue: 'other' })).toMatchObject({ queue: null });
    await expect(s.limitRate(null, { group: 'g', eachGroup: true })).rejects.toMatchObject({ field: 'options.eachGroup' });
  });
});

describe('limitRate per group', () => {
  it('holds one group to its rate without holding up the others', async () => {
    const s = await redis.scheduler();
    await s.limitRate({ max: 2, per: 400, group: 'slow' });
    expect(await s.rateLimits()).toMatchObject({ queue: null, eachGroup: null, groups: { slow: { max: 2, per: 400 } } });
    await s.putMany([
      ...Array.from({ length: 6 }, (_, i) => ({ data: `slow-${i}`, options: { group: 'slow' } })),
      ...Array.from({ length: 6 }, (_, i) => ({ data: `fast-${i}`, options: { group: 'fast' } })),
    ]);
    const runs: Array<{ data: string; at: number }> = [];
    const lease = 30_000;
    const w = s.work(async (task) => void runs.push({ data: task.data as string, at: task.leaseUntil - lease }), { concurrency: 4, lease });
    await eventually(() => runs.filter((r) => r.data.startsWith('fast')).length === 6, 2000);
    // The fast group ran at once; the slow one at most 2 per 400 ms.
    expect(runs.filter((r) => r.data.startsWith('slow')).length).toBeLessThanOrEqual(2);
    await eventually(() => runs.length === 12, 4000);
    await w.close();
    const slow = runs.filter((r) => r.data.startsWith('slow')).map((r) => r.at);
    expect(busiestWindow(slow, 400)).toBeLessThanOrEqual(2);
    expect(Math.max(...slow) - Math.min(...slow)).toBeGreaterThanOrEqual(2 * 400 - 50);
  });

  it('eachGroup limits every group without its own, and a group of its own overrides it', async () => {
    const s = await redis.scheduler();
    await s.limitRate({ max: 1, per: 300, eachGroup: true });
    await s.limitRate({ max: 3, per: 300, group: 'vip' });
    await s.putMany([
      ...Array.from({ length: 3 }, (_, i) => ({ data: `a-${i}`, options: { group: 'a' } })),
      ...Array.from({ length: 3 }, (_, i) => ({ data: `vip-${i}`, options: { group: 'vip' } })),
    ]);
    const first = await s.claimMany(10);
    expect(first.map((t) => t.data).sort()).toEqual(['a-0', 'vip-0', 'vip-1', 'vip-2']);
    expect(await s.claimMany(10)).toEqual([]);
    await sleep(350);
    expect((await s.claimMany(10)).map((t) => t.data)).toEqual(['a-1']);
    await s.limitRate(null, { eachGroup: true });
    expect((await s.claimMany(10)).map((t) => t.data)).toEqual(['a-2']);
    expect(await s.rateLimits()).toMatchObject({ eachGroup: null, groups: { vip: { max: 3, per: 300 } } });
    // Any group name is listed as it is, __proto__ too.
    await s.limitRate({ max: 2, per: 1000, group: '__proto__' });
    const { groups } = await s.rateLimits();
    expect(Object.keys(groups).sort()).toEqual(['__proto__', 'vip']);
    expect(Object.getPrototypeOf(groups)).toBe(Object.prototype);
  });
});

describe('backoffQueue', () => {
  it('holds every claim of the queue for the span, on the Redis clock', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.put('after the 429');
    const until = await s.backoffQueue('default', 300);
    const now = await serverNow(raw);
    expect(until - now).toBeGreaterThan(200);
    expect(await s.rateLimits()).toMatchObject({ heldUntil: until });
    expect(await s.claim()).toBeNull();
    const ran: number[] = [];
    const w = s.work(async () => void ran.push(await serverNow(raw)));
    await eventually(() => ran.length === 1, 3000);
    await w.close();
    expect(ran[0]).toBeGreaterThanOrEqual(until);
  });
});
