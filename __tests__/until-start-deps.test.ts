/**
 * `until-start` never leaves two copies of an identity waiting (guarantees.md, "De-dup modes keep
 * their promise"), even when tasks wait on the one that fails: it is merged into its waiting copy,
 * and the tasks that waited on it wait on that copy instead.
 */
import { queueKeys } from '../lib/domain/keys';
import { eventually, useRedis } from './support/harness';

const redis = useRedis();

describe("until-start with dependents: 'never two copies of an identity waiting'", () => {
  it('a failed task others wait on is merged into its waiting copy, and they wait on that copy', async () => {
    const s = await redis.scheduler();
    const a = await s.put('refresh', { unique: 'until-start', keepResult: 60_000 });
    const running = (await s.claim())!;
    expect(running.hash).toBe(a.hash);
    const copy = await s.put('refresh', { unique: 'until-start' });
    expect(copy).toMatchObject({ status: 'added' });
    const c = await s.put('after-refresh', { after: [a.hash] });
    expect((await s.get(c.hash))!.state).toBe('waiting');

    expect(await s.fail(running, { error: 'upstream down', retryIn: 0 })).toBe('merged');
    expect(await s.stats()).toMatchObject({ ready: 1, active: 0, totals: { merged: 1 } });
    expect(await s.result(a.hash)).toMatchObject({ state: 'merged', into: copy.hash });
    expect((await s.get(c.hash))!.state).toBe('waiting');

    // C runs once the copy is done, not before.
    const next = (await s.claim())!;
    expect(next.hash).toBe(copy.hash);
    expect(await s.claim()).toBeNull();
    expect((await s.get(c.hash))!.state).toBe('waiting');
    expect(await s.ack(next)).toBe(true);
    const last = (await s.claim())!;
    expect(last.hash).toBe(c.hash);
    expect(await s.ack(last)).toBe(true);
    const raw = await redis.raw();
    const keys = queueKeys(s.prefix, 'default');
    for (const key of [keys.after, keys.dependents, keys.blocked]) expect(await raw.zCard(key)).toBe(0);
  });

  it('a dependent handed to the copy goes dead, or is cancelled, when the copy dies', async () => {
    const s = await redis.scheduler();
    await s.put('flaky', { unique: 'until-start' });
    const running = (await s.claim())!;
    const copy = await s.put('flaky', { unique: 'until-start', maxAttempts: 1 });
    const dies = await s.put('dies-with-it', { after: [running.hash] });
    const cancelled = await s.put('cancelled-with-it', { after: [running.hash], onDependencyFailure: 'cancel', keepResult: 60_000 });
    expect(await s.fail(running, { error: 'x', retryIn: 0 })).toBe('merged');

    const next = (await s.claim())!;
    expect(next.hash).toBe(copy.hash);
    expect(await s.fail(next, { error: 'copy failed' })).toBe('dead');
    expect(await s.get(dies.hash)).toMatchObject({ state: 'dead', lastError: `dependency default/${copy.hash} dead` });
    expect(await s.result(cancelled.hash)).toMatchObject({ state: 'cancelled' });
    expect(await s.claim()).toBeNull();
  });

  it('a dependent in another queue is handed over too', async () => {
    const s = await redis.scheduler();
    await s.put('cross', { unique: 'until-start', queue: 'us-up' });
    const running = (await s.claim({ queue: 'us-up' }))!;
    const copy = await s.put('cross', { unique: 'until-start', queue: 'us-up' });
    const c = await s.put('downstream', { queue: 'us-down', after: [{ queue: 'us-up', hash: running.hash }] });
    expect(await s.fail(running, { error: 'x', retryIn: 0 })).toBe('merged');
    // The copy learns of it through the outbox, carried by the fail's own client.
    const dependents = queueKeys(s.prefix, 'us-up').dependents;
    const raw = await redis.raw();
    await eventually(async () => (await raw.zRange(dependents, 0, -1)).includes(`${copy.hash}|${c.hash}|us-down`), 2000);
    expect((await s.get(c.hash, { queue: 'us-down' }))!.state).toBe('waiting');
    const next = (await s.claim({ queue: 'us-up' }))!;
    expect(next.hash).toBe(copy.hash);
    expect(await s.ack(next)).toBe(true);
    await eventually(async () => (await s.get(c.hash, { queue: 'us-down' }))?.state === 'ready', 2000);
  });

  it('a lapsed lease of a task others wait on is merged too', async () => {
    const s = await redis.scheduler();
    await s.put('lapse-with-dependent', { unique: 'until-start' });
    const running = (await s.claim({ lease: 50 }))!;
    const copy = await s.put('lapse-with-dependent', { unique: 'until-start' });
    const c = await s.put('after-lapse', { after: [running.hash] });
    await new Promise((resolve) => setTimeout(resolve, 80));
    const next = (await s.claim())!; // the lapse is found here: merged, not re-queued
    expect(next.hash).toBe(copy.hash);
    expect(await s.claim()).toBeNull();
    expect((await s.stats()).totals).toMatchObject({ merged: 1 });
    expect(await s.ack(next)).toBe(true);
    expect((await s.claim())!.hash).toBe(c.hash);
  });
});
