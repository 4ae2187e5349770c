/**
 * A kept outcome never outlives the run that replaced it (guarantees.md, "Outcomes are as durable
 * as the tasks": a new run of an identity replaces or removes what was kept of the previous one).
 * result() and a dependent put `after` the identity read the latest run, not an older kept one.
 */
import { queueKeys } from '../lib/domain/keys';
import { useRedis } from './support/harness';

const redis = useRedis();

describe('a new run of an identity replaces what was kept of the previous one', () => {
  it('a kept dead task revived by a put without keepResult, then acked, reads done, and a dependent runs', async () => {
    const s = await redis.scheduler();
    // The kept outcome alone: the done history (on by default) would answer the second run.
    await s.keep({ done: { count: 0 } });
    const first = await s.put('revive-me', { keepResult: 60_000, maxAttempts: 1 });
    expect(await s.fail((await s.claim())!, { error: 'first run failed' })).toBe('dead');
    expect(await s.result(first.hash)).toMatchObject({ state: 'dead', error: 'first run failed' });

    const again = await s.put('revive-me');
    expect(again).toMatchObject({ hash: first.hash, status: 'revived' });
    expect(await s.result(first.hash)).toMatchObject({ state: 'pending' });
    const task = (await s.claim())!;
    expect(task.hash).toBe(first.hash);
    expect(await s.ack(task, 'second')).toBe(true);

    // Finished without keepResult: nothing is kept, and the old 'dead' is gone with it.
    expect(await s.result(first.hash)).toBeNull();
    const after = await s.put('after-revived', { after: [first.hash] });
    expect((await s.get(after.hash))!.state).toBe('ready');
  });

  it('a kept done, then a re-run that dies and is purged, reads nothing', async () => {
    const s = await redis.scheduler();
    const first = await s.put('rerun', { keepResult: 60_000 });
    expect(await s.ack((await s.claim())!, 'first result')).toBe(true);
    expect(await s.result(first.hash)).toMatchObject({ state: 'done', result: 'first result' });

    const again = await s.put('rerun', { maxAttempts: 1 });
    expect(again).toMatchObject({ hash: first.hash, status: 'added' });
    expect(await s.fail((await s.claim())!, { error: 'second run failed' })).toBe('dead');
    expect(await s.result(first.hash)).toMatchObject({ state: 'dead', error: 'second run failed' });
    expect(await s.purgeDead()).toBe(1);
    expect(await s.result(first.hash)).toBeNull();
  });

  it('a put that adds the identity again drops its kept outcome at once, and a dependent waits on the new run', async () => {
    const s = await redis.scheduler();
    const first = await s.put('dropped', { keepResult: 60_000, maxAttempts: 1 });
    expect(await s.fail((await s.claim())!, { error: 'boom' })).toBe('dead');
    await s.cancel(first.hash);
    // Cancelling the dead task keeps its 'dead' outcome; a new put of the same data is a new run.
    expect(await s.result(first.hash)).toMatchObject({ state: 'dead' });
    const again = await s.put('dropped');
    expect(again).toMatchObject({ hash: first.hash, status: 'added' });
    const raw = await redis.raw();
    expect(await raw.hExists(queueKeys(s.prefix, 'default').results, first.hash)).toBe(false);

    const dependent = await s.put('waits-on-new-run', { after: [first.hash] });
    expect((await s.get(dependent.hash))!.state).toBe('waiting');
    expect(await s.ack((await s.claim())!)).toBe(true);
    expect((await s.get(dependent.hash))!.state).toBe('ready');
  });

  it('a run that finishes with keepResult replaces the earlier kept outcome', async () => {
    const s = await redis.scheduler();
    const first = await s.put('replaced', { keepResult: 60_000, maxAttempts: 1 });
    expect(await s.fail((await s.claim())!, { error: 'boom' })).toBe('dead');
    expect(await s.put('replaced', { keepResult: 60_000 })).toMatchObject({ status: 'revived' });
    expect(await s.ack((await s.claim())!, 7)).toBe(true);
    expect(await s.result(first.hash)).toMatchObject({ state: 'done', result: 7 });
  });
});
