/**
 * Dependencies: put(data, { after }) waits until every task it names is done, in its own queue
 * and across queues; onDependencyFailure; results that flow down; cancel and de-dup; bad input.
 */
import { UnreadableRecordError, ValidationError, type Scheduler } from '../lib';
import { queueKeys } from '../lib/domain/keys';
import { eventually, keysUnder, useRedis } from './support/harness';

const redis = useRedis();

/** Claims and acks the task `hash` of `queue` (it must be the one claimed next there). */
async function finish(s: Scheduler, hash: string, queue?: string, result?: unknown): Promise<void> {
  const task = await s.claim({ queue });
  expect(task?.hash).toBe(hash);
  expect(await s.ack(task!, result as never)).toBe(true);
}

/** The raw members of one of a queue's dependency indexes. */
async function index(s: Scheduler & { prefix: string }, queue: string, key: 'after' | 'dependents' | 'blocked' | 'outbox'): Promise<string[]> {
  const raw = await redis.raw();
  return raw.zRange(`${s.prefix}:{${queue}}:${key}`, 0, -1);
}

describe('in one queue', () => {
  it('waits until every task it names is done, then is ready', async () => {
    const s = await redis.scheduler();
    const a = await s.put('a');
    const b = await s.put('b');
    const c = await s.put('c', { after: [a.hash, b.hash] });
    expect(c.status).toBe('added');
    expect((await s.get(c.hash))!.state).toBe('waiting');
    expect(await s.stats()).toMatchObject({ ready: 2 });
    await finish(s, a.hash);
    expect((await s.get(c.hash))!.state).toBe('waiting');
    await finish(s, b.hash);
    // Released by the ack's own call: the next claim takes it.
    await finish(s, c.hash);
    expect(await keysUnder(await redis.raw(), s.prefix)).not.toEqual(expect.arrayContaining([expect.stringMatching(/:(after|dependents|blocked|deplist|settle)$/)]));
  });

  it('starts ready when what it names is already done (no record left), and delayed when its run-at is later', async () => {
    const s = await redis.scheduler();
    const a = await s.put('gone');
    await finish(s, a.hash);
    const now = await s.put('now', { after: [a.hash] });
    expect((await s.get(now.hash))!.state).toBe('ready');
    const b = await s.put('b');
    const later = await s.put('later', { after: [b.hash], delay: 60_000 });
    await finish(s, now.hash);
    await finish(s, b.hash);
    expect((await s.get(later.hash))!.state).toBe('delayed');
  });

  it('goes dead by default when one it waits on goes dead, with an error that names it, and so on down', async () => {
    const s = await redis.scheduler();
    const a = await s.put('flaky', { maxAttempts: 1 });
    const b = await s.put('b', { after: [a.hash] });
    const c = await s.put('c', { after: [b.hash] });
    const task = (await s.claim())!;
    expect(await s.fail(task, { error: 'boom' })).toBe('dead');
    // Passed down by the fail call itself.
    expect((await s.get(c.hash))!.state).toBe('dead');
    expect(await s.get(b.hash)).toMatchObject({ state: 'dead', lastError: `dependency default/${a.hash} dead` });
    expect((await s.get(c.hash))!.lastError).toBe(`dependency default/${b.hash} dead`);
  });

  it('a dead dependent purged or put again leaves no list of what it waited on', async () => {
    const s = await redis.scheduler({ prefix: 'purged' });
    const a = await s.put('gone', { maxAttempts: 1 });
    const b = await s.put('b', { after: [a.hash] });
    expect(await s.fail((await s.claim())!, { error: 'no' })).toBe('dead');
    expect(await s.dependencies(b.hash)).toHaveLength(1);
    // Revived without `after`: it is ready, waits on nothing, and lists nothing.
    expect(await s.put('b')).toMatchObject({ hash: b.hash });
    expect((await s.get(b.hash))!.state).toBe('ready');
    expect(await s.dependencies(b.hash)).toEqual([]);
    const c = await s.put('c', { after: [a.hash] });
    expect((await s.get(c.hash))!.state).toBe('dead');
    expect(await s.purgeDead()).toBe(2);
    expect((await keysUnder(await redis.raw(), 'purged')).filter((k) => k.endsWith(':deplist'))).toEqual([]);
  });

  it("onDependencyFailure 'cancel' cancels it; 'run' runs it once the rest are done", async () => {
    const s = await redis.scheduler();
    const bad = await s.put('bad', { maxAttempts: 1 });
    const good = await s.put('good');
    const cancelled = await s.put('x', { after: [bad.hash], onDependencyFailure: 'cancel', keepResult: 60_000 });
    const runs = await s.put('y', { after: [bad.hash, good.hash], onDependencyFailure: 'run' });
    expect(await s.fail((await s.claim())!, { error: 'boom' })).toBe('dead');
    await finish(s, good.hash);
    expect(await s.get(cancelled.hash)).toBeNull();
    expect(await s.result(cancelled.hash)).toMatchObject({ state: 'cancelled' });
    await finish(s, runs.hash);
  });

  it('counts an expired or cancelled dependency as failed', async () => {
    const s = await redis.scheduler();
    const cancelled = await s.put('to cancel');
    const d1 = await s.put('d1', { after: [cancelled.hash] });
    expect(await s.cancel(cancelled.hash)).toBe(true);
    expect(await s.get(d1.hash)).toMatchObject({ state: 'dead', lastError: `dependency default/${cancelled.hash} cancelled` });
    const expiring = await s.put('expiring', { expire: 1 });
    const d2 = await s.put('d2', { after: [expiring.hash] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await s.claim()).toBeNull();
    expect(await s.get(d2.hash)).toMatchObject({ state: 'dead', lastError: `dependency default/${expiring.hash} expired` });
  });

  it('hands results down: task.dependencies() reads the kept outcome of each, in put order', async () => {
    const s = await redis.scheduler();
    // keepResult alone decides here: the done history (on by default) would answer b's outcome too.
    await s.keep({ done: { count: 0 } });
    const a = await s.put('a', { keepResult: 60_000 });
    const b = await s.put('b');
    const c = await s.put('c', { after: [b.hash, a.hash] });
    await finish(s, a.hash, undefined, { total: 42 });
    await finish(s, b.hash, undefined, 'not kept');
    const task = (await s.claim())!;
    expect(task.hash).toBe(c.hash);
    const deps = await task.dependencies();
    expect(deps.map((d) => d.hash)).toEqual([b.hash, a.hash]);
    expect(deps[0].outcome).toBeNull();
    expect(deps[1].outcome).toMatchObject({ state: 'done', result: { total: 42 } });
    expect(await s.dependencies(c.hash)).toEqual(deps);
    expect(await s.dependencies(c.hash, { limit: 1 })).toEqual([deps[0]]);
    await expect(s.dependencies(c.hash, { limit: 0 })).rejects.toMatchObject({ name: 'ValidationError', field: 'options.limit' });
  });

  it('de-duplicates a waiting task like any other, and cancelling it takes it off the lists it was on', async () => {
    const s = await redis.scheduler();
    const a = await s.put('a');
    const c = await s.put('c', { after: [a.hash] });
    expect(await s.put('c', { after: [a.hash] })).toMatchObject({ hash: c.hash, status: 'duplicate' });
    expect(await s.put('c', { onDuplicate: 'replace' })).toMatchObject({ hash: c.hash, status: 'duplicate' });
    expect(await index(s, 'default', 'dependents')).toEqual([`${a.hash}|${c.hash}|default`]);
    expect(await s.cancel(c.hash)).toBe(true);
    expect(await index(s, 'default', 'dependents')).toEqual([]);
    expect(await index(s, 'default', 'after')).toEqual([]);
    expect(await index(s, 'default', 'blocked')).toEqual([]);
    await finish(s, a.hash);
    expect(await s.claim()).toBeNull();
  });

  it('a task rescheduled while it waits keeps waiting, and runs at the new run-at once released', async () => {
    const s = await redis.scheduler();
    const a = await s.put('a');
    const c = await s.put('c', { after: [a.hash] });
    expect(await s.reschedule(c.hash, Date.now() + 60_000)).toBe(true);
    expect((await s.get(c.hash))!.state).toBe('waiting');
    await finish(s, a.hash);
    expect((await s.get(c.hash))!.state).toBe('delayed');
  });

  it('a dependency put in the same putMany is found', async () => {
    const s = await redis.scheduler();
    const [a, b] = await s.putMany([{ data: 'first' }, { data: 'second', options: { after: [] } }]);
    const [c] = await s.putMany([{ data: 'third', options: { after: [a.hash, b.hash] } }]);
    expect((await s.get(c.hash))!.state).toBe('waiting');
    // Put again in one call with a task that waits on it: the record written first is found.
    await finish(s, a.hash);
    const [again, d] = await s.putMany([{ data: 'first' }, { data: 'fourth', options: { after: [a.hash] } }]);
    expect(again).toMatchObject({ hash: a.hash, status: 'added' });
    expect((await s.get(d.hash))!.state).toBe('waiting');
  });
});

describe('across queues', () => {
  it('waits on a task of another queue, and is released when that one is acked', async () => {
    const s = await redis.scheduler();
    const p = await s.put('parent', { queue: 'upstream' });
    const d = await s.put('child', { queue: 'downstream', after: [{ queue: 'upstream', hash: p.hash }] });
    expect((await s.get(d.hash, { queue: 'downstream' }))!.state).toBe('waiting');
    // Registered with the parent's queue by the put itself.
    expect(await index(s, 'upstream', 'dependents')).toEqual([`${p.hash}|${d.hash}|downstream`]);
    await finish(s, p.hash, 'upstream');
    await eventually(async () => (await s.get(d.hash, { queue: 'downstream' }))?.state === 'ready');
    await finish(s, d.hash, 'downstream');
    expect(await index(s, 'upstream', 'outbox')).toEqual([]);
  });

  it('learns at once of a parent in another queue that is already dead', async () => {
    const s = await redis.scheduler();
    const p = await s.put('doomed', { queue: 'up2', maxAttempts: 1 });
    expect(await s.fail((await s.claim({ queue: 'up2' }))!, { error: 'no' })).toBe('dead');
    const d = await s.put('child', { queue: 'down2', after: [{ queue: 'up2', hash: p.hash }] });
    await eventually(async () => (await s.get(d.hash, { queue: 'down2' }))?.state === 'dead');
    expect((await s.get(d.hash, { queue: 'down2' }))!.lastError).toBe(`dependency up2/${p.hash} dead`);
  });

  it("a fail that kills the parent carries its dependents' failure to their queue itself", async () => {
    const s = await redis.scheduler();
    const p = await s.put('p', { queue: 'f-up', maxAttempts: 1 });
    const d = await s.put('d', { queue: 'f-down', after: [{ queue: 'f-up', hash: p.hash }] });
    expect(await s.fail((await s.claim({ queue: 'f-up' }))!, { error: 'no' })).toBe('dead');
    // No claim runs in either queue: the fail's own client carried the step.
    await eventually(async () => (await s.get(d.hash, { queue: 'f-down' }))?.state === 'dead', 2000);
    expect(await index(s, 'f-up', 'outbox')).toEqual([]);
    // A task nobody waits on goes dead in one call: no carry after it.
    await s.put('lonely', { queue: 'f-up', maxAttempts: 1 });
    const task = (await s.claim({ queue: 'f-up' }))!;
    // The scripts this scheduler runs, counted on its own runner (the test server is shared).
    const scripts = (s as unknown as { ctx: { scripts: { run: (...a: unknown[]) => Promise<unknown> } } }).ctx.scripts;
    const run = scripts.run.bind(scripts);
    const ran: unknown[] = [];
    scripts.run = (...a: unknown[]) => (ran.push((a[0] as { name: string }).name), run(...a));
    expect(await s.fail(task, { error: 'no' })).toBe('dead');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ran).toEqual(['fail']);
  });

  it('a worker of the parent queue carries the release when a parent finishes under it', async () => {
    const s = await redis.scheduler();
    const parents = await Promise.all([1, 2, 3].map((i) => s.put({ i }, { queue: 'w-up' })));
    const d = await s.put('fan-in', { queue: 'w-down', after: parents.map((p) => ({ queue: 'w-up', hash: p.hash })) });
    const ran: string[] = [];
    const up = s.work(async (t) => void ran.push(t.hash), { queue: 'w-up' });
    const down = s.work(async (t) => void ran.push(t.hash), { queue: 'w-down' });
    await eventually(() => ran.includes(d.hash));
    await Promise.all([up.close(), down.close()]);
    expect(ran.indexOf(d.hash)).toBe(3);
  });

  it('cancelling a waiting task takes it off the lists of the other queue too', async () => {
    const s = await redis.scheduler();
    const p = await s.put('p', { queue: 'c-up' });
    const d = await s.put('d', { queue: 'c-down', after: [{ queue: 'c-up', hash: p.hash }] });
    expect(await index(s, 'c-up', 'dependents')).toHaveLength(1);
    expect(await s.cancel(d.hash, { queue: 'c-down' })).toBe(true);
    expect(await index(s, 'c-up', 'dependents')).toEqual([]);
    expect(await index(s, 'c-down', 'outbox')).toEqual([]);
  });

  it('holds when the parent finishes while the dependent is being put (100 races)', async () => {
    const s = await redis.scheduler();
    for (let i = 0; i < 100; i++) {
      const p = await s.put({ race: i }, { queue: 'r-up' });
      const task = (await s.claim({ queue: 'r-up' }))!;
      const [d] = await Promise.all([s.put({ child: i }, { queue: 'r-down', after: [{ queue: 'r-up', hash: p.hash }] }), s.ack(task)]);
      await eventually(async () => (await s.get(d.hash, { queue: 'r-down' }))?.state === 'ready', 2000);
      await finish(s, d.hash, 'r-down');
    }
    expect(await index(s, 'r-up', 'dependents')).toEqual([]);
  });
});

describe('a stored dependency list of another shape', () => {
  it.each([
    ['an object', '{"q":"a"}'],
    ['a number', '42'],
    ['null', 'null'],
    ['a list of no [queue, hash] pairs', '[["q"],7]'],
  ])('is an UnreadableRecordError naming the list, when it is %s', async (_, record) => {
    const s = await redis.scheduler();
    const a = await s.put('a');
    const b = await s.put('b', { after: [a.hash] });
    await (await redis.raw()).hSet(queueKeys(s.prefix, 'default').deplist, b.hash, record);
    const err = await s.dependencies(b.hash).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreadableRecordError);
    expect(err).toMatchObject({ code: 'ERR_UNREADABLE_RECORD', what: `the dependency list of task ${b.hash}`, cause: expect.any(TypeError) });
  });
});

describe('bad input is refused, and nothing is written', () => {
  it.each([
    ['a dependency on itself', (s: Scheduler, self: string) => s.put('me', { after: [self] }), 'options.after[0]'],
    ['a ref that is not a hash', (s: Scheduler) => s.put('x', { after: [42 as never] }), 'options.after[0]'],
    ['a ref with a bar', (s: Scheduler) => s.put('x', { after: ['a|b'] }), 'options.after[0]'],
    ['an unknown policy', (s: Scheduler) => s.put('x', { after: ['abc'], onDependencyFailure: 'retry' as never }), 'options.onDependencyFailure'],
    ['a queue with no tasks ever put', (s: Scheduler) => s.put('x', { after: [{ queue: 'nowhere', hash: 'abc' }] }), 'options.after[0].queue'],
    ['more than 10,000 refs', (s: Scheduler) => s.put('x', { after: Array.from({ length: 10_001 }, (_, i) => `h${i}`) }), 'options.after'],
  ])('%s', async (_, call, field) => {
    const s = await redis.scheduler();
    const self = (await s.put('me')).hash;
    const raw = await redis.raw();
    const before = await keysUnder(raw, s.prefix);
    const err = await call(s, self).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe(field);
    expect(await keysUnder(raw, s.prefix)).toEqual(before);
  });
});
