/**
 * Throughput over a day on a real redis-server: the per-minute counters (`minutes`, lua/include/
 * minutes.lua) count each attempt's outcome where claim and fail count it, delete the minutes that
 * left the day at most once a minute, carry a TTL of a day so an idle queue's key goes away, go
 * with obliterate, and throughput() reads them for a window over 10 minutes.
 */
import { queueKeys } from '../lib/domain/keys';
import { ValidationError } from '../lib';
import { useRedis } from './support/harness';

const redis = useRedis();
const MINUTE = 60_000;
const DAY_MINUTES = 1440;

async function serverMinute(): Promise<number> {
  const raw = await redis.raw();
  const [seconds] = await raw.sendCommand<[string, string]>(['TIME']);
  return Math.floor((Number(seconds) * 1000) / MINUTE);
}

/** The counters' fields with values, by name, and the key's TTL. */
async function counters(prefix: string, queue: string): Promise<{ fields: Record<string, string>; ttl: number }> {
  const raw = await redis.raw();
  const key = queueKeys(prefix, queue).minutes;
  return { fields: await raw.hGetAll(key), ttl: await raw.pTTL(key) };
}

describe('per-minute counters', () => {
  it('count completed, failed and dead in the minute they happen, with a TTL of a day and a minute', async () => {
    const s = await redis.scheduler();
    const queue = 'minutes';
    for (let i = 0; i < 3; i++) await s.put({ i }, { queue });
    await s.put({ fails: true }, { queue, maxAttempts: 2 });
    const minute = await serverMinute();
    for (let i = 0; i < 3; i++) await s.ack((await s.claim({ queue }))!);
    await s.fail((await s.claim({ queue }))!, { error: 'first', retryIn: 0 });
    await s.fail((await s.claim({ queue }))!, { error: 'second' });
    const { fields, ttl } = await counters(s.prefix, queue);
    // The calls may straddle a minute: each kind is counted in the minute it happened.
    const sum = (kind: string) => Object.entries(fields).reduce((n, [f, v]) => (f[0] === kind && Number(f.slice(1)) >= minute ? n + Number(v) : n), 0);
    expect({ c: sum('c'), f: sum('f'), d: sum('d') }).toEqual({ c: 3, f: 1, d: 1 });
    expect(Number(fields.swept)).toBeGreaterThanOrEqual(minute - DAY_MINUTES);
    expect(ttl).toBeGreaterThan(DAY_MINUTES * MINUTE);
    expect(ttl).toBeLessThanOrEqual((DAY_MINUTES + 1) * MINUTE);
    expect((await s.stats({ queue })).totals.completed).toBe(3);

    // Read as throughput: 24 h in minutes, the auto choice for a window past 10 minutes.
    const t = await s.throughput({ queue, window: 86_400_000, bucket: MINUTE });
    expect(t.source).toBe('minutes');
    expect(t.buckets).toHaveLength(DAY_MINUTES);
    const total = (k: 'completed' | 'failed' | 'dead') => t.buckets.reduce((n, b) => n + b[k], 0);
    expect({ completed: total('completed'), failed: total('failed'), dead: total('dead') }).toEqual({ completed: 3, failed: 1, dead: 1 });
    // The last bucket is the minute `now` falls in; the buckets are whole minutes of the clock.
    expect(t.buckets.at(-1)!.at).toBe(Math.floor(t.now / MINUTE) * MINUTE);
    expect(t.buckets[0].at % MINUTE).toBe(0);
    // The stream still answers the 10-minute window, as before.
    expect((await s.throughput({ queue })).source).toBe('events');
    await s.close();
  });

  it('delete the minutes that left the day on the first outcome of a new minute, and only those', async () => {
    const s = await redis.scheduler();
    const queue = 'sweep';
    const raw = await redis.raw();
    const key = queueKeys(s.prefix, queue).minutes;
    const minute = await serverMinute();
    // A day of history as an earlier day left it: two minutes past the day, one within it, and
    // `swept` as of three minutes before the first of them.
    const old1 = minute - DAY_MINUTES - 2;
    const old2 = minute - DAY_MINUTES - 1;
    const within = minute - 30;
    await raw.hSet(key, { swept: String(old1 - 3), [`c${old1}`]: '7', [`d${old2}`]: '2', [`f${within}`]: '4' });
    await s.put({ n: 1 }, { queue });
    await s.ack((await s.claim({ queue }))!);
    const fields = await raw.hGetAll(key);
    expect(fields[`c${old1}`]).toBeUndefined();
    expect(fields[`d${old2}`]).toBeUndefined();
    expect(fields[`f${within}`]).toBe('4');
    expect(Number(fields.swept)).toBeGreaterThanOrEqual(minute - DAY_MINUTES);
    const current = Object.keys(fields).filter((f) => f[0] === 'c');
    expect(current.length).toBe(1);
    // A second outcome in the same minute adds to its field and deletes nothing more.
    const swept = fields.swept;
    await s.put({ n: 2 }, { queue });
    await s.ack((await s.claim({ queue }))!);
    const after = await raw.hGetAll(key);
    expect(after.swept === swept || Number(after.swept) === Number(swept) + 1).toBe(true);
    expect(after[`f${within}`]).toBe('4');
    await s.close();
  });

  it('go with obliterate, and a bad source or bucket is a ValidationError', async () => {
    const s = await redis.scheduler();
    const queue = 'gone';
    await s.put({ n: 1 }, { queue, maxAttempts: 1 });
    await s.fail((await s.claim({ queue }))!, { error: 'boom' });
    const raw = await redis.raw();
    const key = queueKeys(s.prefix, queue).minutes;
    expect(await raw.exists(key)).toBe(1);
    await s.obliterate({ queue, force: true });
    expect(await raw.exists(key)).toBe(0);
    await expect(s.throughput({ queue, window: 3_600_000, bucket: 30_000, source: 'minutes' })).rejects.toThrow(ValidationError);
    await expect(s.throughput({ queue, source: 'hours' as never })).rejects.toThrow(/source/);
    await s.close();
  });
});
