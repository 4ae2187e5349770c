/**
 * Bulk clean and obliterate: deleting ready, delayed or dead tasks in batches while workers run,
 * leaving nothing behind, and removing a whole queue.
 */
import { createClient, type RedisClientType } from 'redis';
import { createScheduler, QueueActiveError, TimeoutError, ValidationError } from '../lib';
import { queueKeys } from '../lib/domain/keys';
import { eventually, keysUnder, sleep, uniquePrefix, useRedis } from './support/harness';
import { startRedis } from './support/redis-server';

const redis = useRedis();
type S = Awaited<ReturnType<typeof redis.scheduler>>;

let killed = 0;
async function killAll(s: S, n: number, queue = 'default'): Promise<string[]> {
  const put = await s.putMany(Array.from({ length: n }, () => ({ data: { dead: killed++ }, options: { queue, maxAttempts: 1 } })));
  for (const task of await s.claimMany(n, { queue })) await s.fail(task, { error: new Error('boom') });
  return put.map((r) => r.hash);
}

/**
 * The keys a queue may keep once its tasks are gone: totals, events, per-minute outcome counts (they
 * expire a day after the last), a wake token, level and tag indexes.
 */
const LEFT_OK = new Set(['counts', 'events', 'minutes', 'wake', 'levels', 'gtags']);

async function leftovers(s: S, queue: string): Promise<string[]> {
  const raw = await redis.raw();
  const base = `${s.prefix}:{${queue}}:`;
  return (await keysUnder(raw, s.prefix))
    .filter((k) => k.startsWith(base))
    .map((k) => k.slice(base.length))
    .filter((k) => !LEFT_OK.has(k));
}

describe('clean', () => {
  it('deletes dead tasks older than a span, at most limit, oldest death first', async () => {
    const s = await redis.scheduler();
    const old = await killAll(s, 30);
    // Old tasks die 1 s before the fresh ones; the fresh are under 600 ms old at the cleans even on a
    // loaded machine.
    await sleep(1000);
    const fresh = await killAll(s, 5);
    expect(await s.clean({ state: 'dead', olderThan: 600, limit: 10 })).toBe(10);
    expect((await s.stats()).dead).toBe(25);
    expect(await s.clean({ state: 'dead', olderThan: { seconds: 0.6 } })).toBe(20);
    const left = (await s.listDead()).map((d) => d.hash).sort();
    expect(left).toEqual([...fresh].sort());
    expect(old.some((h) => left.includes(h))).toBe(false);
    expect(await s.clean({ state: 'dead' })).toBe(5);
    expect(await leftovers(s, 'default')).toEqual([]);
  });

  it('deletes delayed tasks by when they were put, keeping newer ones', async () => {
    const s = await redis.scheduler();
    const old = await s.putMany(Array.from({ length: 1200 }, (_, i) => ({ data: { d: i }, options: { delay: 60_000 + (i % 7) * 1000 } })));
    // A wide margin: on a loaded machine the 1,300 fresh puts alone can take a few hundred ms.
    await sleep(1200);
    const fresh = await s.putMany(Array.from({ length: 1300 }, (_, i) => ({ data: { f: i }, options: { delay: 60_000 + (i % 7) * 1000 } })));
    // Thousands share a few run-ats: the cursor walks ties without skipping or repeating.
    expect(await s.clean({ state: 'delayed', olderThan: 1000 })).toBe(1200);
    const page = await s.list('delayed', { limit: 1000 });
    expect(page.total).toBe(1300);
    expect(await s.get(old[0].hash)).toBeNull();
    expect(await s.get(fresh[0].hash)).toMatchObject({ state: 'delayed' });
    expect(await s.clean({ state: 'delayed', limit: 1000 })).toBe(1000);
    expect(await s.clean({ state: 'delayed' })).toBe(300);
    expect(await leftovers(s, 'default')).toEqual([]);
  });

  it('deletes ready tasks of every kind (levels, groups, parked) and leaves nothing behind', async () => {
    const s = await redis.scheduler();
    await s.limitGroups(1, { queue: 'r' });
    await s.putMany(Array.from({ length: 700 }, (_, i) => ({ data: { i }, options: { queue: 'r', priority: i % 10, group: i % 3 === 0 ? `g${i % 4}` : undefined } })));
    const claimed = await s.claimMany(20, { queue: 'r' }); // parks tasks of groups at their limit
    const { hash: progressed } = await s.put({ p: 1 }, { queue: 'r' });
    expect((await s.stats({ queue: 'r' })).ready).toBe(681);
    const deleted = await s.clean({ queue: 'r', state: 'ready' });
    expect(deleted).toBe(681);
    expect(await s.get(progressed, { queue: 'r' })).toBeNull();
    const st = await s.stats({ queue: 'r' });
    expect(st).toMatchObject({ ready: 0, active: claimed.length });
    // The claimed ones stayed theirs: their acks land.
    for (const task of claimed) expect(await s.ack(task)).toBe(true);
    // Nothing is left but the acked tasks' entries in the queue's done history (on by default), and
    // the per-minute counts of their outcomes.
    expect((await leftovers(s, 'r')).filter((k) => k !== 'glimits' && k !== 'acked')).toEqual(['done', 'history']);
    const raw = await redis.raw();
    // Each a row ('<run>|<hash>') and its pointer ('<hash>': its latest run).
    const fields = await raw.hKeys(`${s.prefix}:{r}:history`);
    expect(fields.filter((f) => !f.includes('|')).sort()).toEqual(claimed.map((t) => t.hash).sort());
    expect(
      fields
        .filter((f) => f.includes('|'))
        .map((f) => f.split('|')[1])
        .sort(),
    ).toEqual(claimed.map((t) => t.hash).sort());
  });

  it('deletes only ready tasks put before the cut-off, in list order', async () => {
    const s = await redis.scheduler();
    const old = await s.putMany(Array.from({ length: 1500 }, (_, i) => ({ data: { o: i } })));
    await sleep(1200);
    const fresh = await s.putMany(Array.from({ length: 1500 }, (_, i) => ({ data: { n: i } })));
    expect(await s.clean({ state: 'ready', olderThan: 1000 })).toBe(1500);
    const page = await s.list('ready', { limit: 1000 });
    expect(page.total).toBe(1500);
    expect(page.tasks.map((t) => t.hash)).toEqual(fresh.slice(0, 1000).map((r) => r.hash));
    expect(await s.get(old[1499].hash)).toBeNull();
  });

  it('never deletes a task claimed while it runs, and deletes each other task once', async () => {
    const s = await redis.scheduler();
    const n = 6000;
    for (let i = 0; i < n; i += 1000) await s.putMany(Array.from({ length: 1000 }, (_, j) => ({ data: { i: i + j } })));
    const done = new Set<string>();
    const worker = s.work(async (task) => void done.add(task.hash), { concurrency: 20 });
    await eventually(() => done.size > 0);
    const deleted = await s.clean({ state: 'ready' });
    await eventually(async () => (await s.stats()).active === 0);
    await worker.close();
    const st = await s.stats();
    expect(st.ready).toBe(0);
    expect(deleted + st.totals.completed).toBe(n);
    expect(done.size).toBe(st.totals.completed);
  });

  it('tells the tasks waiting on a cleaned task, in this queue and in others', async () => {
    const s = await redis.scheduler();
    const { hash: first } = await s.put('first', { delay: 60_000, keepResult: 60_000 });
    const { hash: here } = await s.put('here', { after: [first] });
    const { hash: there } = await s.put('there', { queue: 'other', after: [{ queue: 'default', hash: first }], onDependencyFailure: 'cancel', keepResult: 60_000 });
    expect(await s.clean({ state: 'delayed' })).toBe(1);
    expect(await s.result(first)).toMatchObject({ state: 'cancelled' });
    expect(await s.get(here)).toMatchObject({ state: 'dead', lastError: `dependency default/${first} cancelled` });
    await eventually(async () => (await s.result(there, { queue: 'other' }))?.state === 'cancelled');
    const raw = await redis.raw();
    const entries = await raw.xRange(queueKeys(s.prefix, 'default').events, '-', '+');
    expect(entries.map((e) => e.message)).toContainEqual({ type: 'cancelled', id: first });
  });

  it("removes an until-start task's waiting pointer with it", async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('job', { unique: 'until-start' });
    await s.claim();
    const again = await s.put('job', { unique: 'until-start' });
    expect(again.hash).not.toBe(hash);
    const keys = queueKeys(s.prefix, 'default');
    expect(await raw.hLen(keys.redirects)).toBe(1);
    expect(await s.clean({ state: 'ready' })).toBe(1);
    expect(await raw.hLen(keys.redirects)).toBe(0);
    expect(await raw.hExists(keys.tasks, again.hash)).toBe(false);
  });

  it('refuses bad input with a typed error naming the field, and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const cases: Array<[unknown, string]> = [
      [{ state: 'active' }, 'options.state'],
      [{}, 'options.state'],
      [{ state: 'dead', olderThan: -1 }, 'options.olderThan'],
      [{ state: 'dead', limit: 0 }, 'options.limit'],
      [{ state: 'dead', limit: 1.5 }, 'options.limit'],
      [{ state: 'dead', queue: 'a{b}' }, 'options.queue'],
      [{ state: 'dead', force: true }, 'options.force'],
    ];
    for (const [options, field] of cases) {
      const err = await s.clean(options as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe(field);
    }
    await expect(s.obliterate({ force: 'yes' } as never)).rejects.toMatchObject({ field: 'options.force', code: 'ERR_VALIDATION' });
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});

describe('obliterate', () => {
  it('refuses while tasks are leased, then with force deletes every key and the registry entry', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.putMany(Array.from({ length: 50 }, (_, i) => ({ data: { i }, options: { queue: 'gone', priority: i % 3, group: i % 2 ? 'g' : undefined } })));
    await s.put('later', { queue: 'gone', delay: 60_000 });
    await s.put('kept', { queue: 'stays' });
    await killAll(s, 3, 'gone');
    await s.limitRate({ queue: 'gone', max: 100, per: 1000 });
    await s.pause({ queue: 'gone' });
    await s.resume({ queue: 'gone' });
    const leased = await s.claim({ queue: 'gone' });
    await s.progress(leased!, { half: true });
    await s.every('tick', 60_000, 'tick', { queue: 'gone' });
    await s.unschedule('tick', { queue: 'gone' });
    await s.put('tick2', { queue: 'gone' });
    expect(await s.queues()).toEqual(['gone', 'stays']);

    const err = await s.obliterate({ queue: 'gone' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueueActiveError);
    expect(err).toMatchObject({ code: 'ERR_QUEUE_ACTIVE', name: 'QueueActiveError', queue: 'gone', active: 1 });
    expect((await s.stats({ queue: 'gone' })).active).toBe(1);

    await s.obliterate({ queue: 'gone', force: true });
    expect((await keysUnder(raw, s.prefix)).filter((k) => k.includes('{gone}'))).toEqual([]);
    expect(await s.queues()).toEqual(['stays']);
    // Its worker's ack finds no lease.
    expect(await s.ack(leased!)).toBe(false);
    // A put afterwards starts it afresh, and registers it again.
    await s.put('new', { queue: 'gone' });
    expect(await s.queues()).toEqual(['gone', 'stays']);
    expect((await s.stats({ queue: 'gone' })).ready).toBe(1);
  });

  it('tells tasks of other queues: their dependencies on it are cancelled, their dependents forget it', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const a = await s.put('a', { queue: 'doomed' });
    const waits = await s.put('waits', { queue: 'other', after: [{ queue: 'doomed', hash: a.hash }] });
    const runs = await s.put('runs', { queue: 'other', after: [{ queue: 'doomed', hash: a.hash }], onDependencyFailure: 'run' });
    const ref = await s.put('ref', { queue: 'other' });
    // A task of the doomed queue waits on one of 'other': 'other' holds its registration.
    await s.put('c', { queue: 'doomed', after: [{ queue: 'other', hash: ref.hash }] });
    const dependents = queueKeys(s.prefix, 'other').dependents;
    await eventually(async () => (await raw.zCard(dependents)) === 1);
    expect(await s.stats({ queue: 'other' })).toMatchObject({ waiting: 2, ready: 1 });

    await s.obliterate({ queue: 'doomed' });
    expect((await keysUnder(raw, s.prefix)).filter((k) => k.includes('{doomed}'))).toEqual([]);
    expect(await s.queues()).toEqual(['other']);
    expect(await s.get(waits.hash, { queue: 'other' })).toMatchObject({ state: 'dead', lastError: `dependency doomed/${a.hash} cancelled` });
    expect(await s.get(runs.hash, { queue: 'other' })).toMatchObject({ state: 'ready' });
    expect(await raw.zCard(dependents)).toBe(0);
    // What 'other' runs now: the task that waited (policy 'run') and ref, whose finish tells nobody.
    const claimed = await s.claimMany(10, { queue: 'other' });
    expect(claimed.map((t) => t.data).sort()).toEqual(['ref', 'runs']);
    for (const t of claimed) expect(await s.ack(t)).toBe(true);
    expect((await keysUnder(raw, s.prefix)).filter((k) => k.includes('{doomed}'))).toEqual([]);
  });

  it('tells at once a caller in another process waiting on the result of a task of another queue that waited on it', async () => {
    const s = await redis.scheduler();
    const elsewhere = await redis.scheduler({ prefix: s.prefix });
    const a = await s.put('a', { queue: 'doomed' });
    const waits = await s.put('waits', { queue: 'other', after: [{ queue: 'doomed', hash: a.hash }] });
    const answer = elsewhere.result(waits.hash, { queue: 'other', wait: 30_000 });
    // Its wait has begun (a result() call reads first, then waits).
    await sleep(200);
    const started = Date.now();
    await s.obliterate({ queue: 'doomed' });
    expect(await answer).toMatchObject({ state: 'dead', hash: waits.hash, error: `dependency doomed/${a.hash} cancelled` });
    // Told by the obliterate, not by the end of its 30 s wait.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('deletes an idle queue without force', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.putMany(Array.from({ length: 10 }, (_, i) => ({ data: { i } })));
    await s.obliterate();
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });

  it('leaves queues() once its keys are gone though a freeze cut it off, and a second call finishes it', async () => {
    // A server of its own: the test freezes it (SIGSTOP), as a stalled Redis or a lost link does.
    const server = await startRedis();
    const raw = createClient({ url: server.url }) as RedisClientType;
    raw.on('error', () => {});
    const prefix = uniquePrefix();
    const s = await createScheduler({ url: server.url, prefix, commandTimeout: 300, warnings: { aof: false } });
    try {
      await raw.connect();
      await s.putMany(Array.from({ length: 20 }, (_, i) => ({ data: { i }, options: { queue: 'doomed' } })));
      await s.put('kept', { queue: 'stays' });
      // Redis has the library loaded then: a first call's FCALL would answer "Function not found" after
      // the thaw, and with nobody left to load it and call again, nothing would be deleted.
      await s.obliterate({ queue: 'never-used' });
      server.signal('SIGSTOP');
      // The script goes out and the call times out; Redis runs it once it thaws, and the name's
      // removal from the registry, a later call, was never sent.
      await expect(s.obliterate({ queue: 'doomed' })).rejects.toBeInstanceOf(TimeoutError);
      server.signal('SIGCONT');
      await eventually(async () => (await keysUnder(raw, prefix)).every((k) => !k.includes('{doomed}')));
      expect(await raw.sMembers(`${prefix}:queues`)).toContain('doomed');
      // A queue whose keys are all gone is not listed, though its name is still registered.
      expect(await s.queues()).toEqual(['stays']);
      // Called again, obliterate finishes: the name goes too.
      await s.obliterate({ queue: 'doomed' });
      expect(await raw.sMembers(`${prefix}:queues`)).toEqual(['stays']);
      // A put brings it back, listed and usable.
      await s.put('again', { queue: 'doomed' });
      expect(await s.queues()).toEqual(['doomed', 'stays']);
      expect((await s.stats({ queue: 'doomed' })).ready).toBe(1);
    } finally {
      server.signal('SIGCONT');
      await s.close();
      await raw.quit().catch(() => {});
      await server.stop();
    }
  });
});
