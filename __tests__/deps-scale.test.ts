/**
 * Dependencies at the limit: a task after 10,000 others (fan-in) and 10,000 tasks after one
 * (fan-out), in one queue and across two. Each task runs once, a dependent only once all it waits
 * on are done, and the dependency indexes are empty afterwards.
 */
import type { RedisClientType } from 'redis';
import { MAX_AFTER } from '../lib/domain/options';
import { DONE_HISTORY } from '../lib/domain/domain';
import type { Scheduler, Task } from '../lib';
import { eventually, keysUnder, useRedis } from './support/harness';

const redis = useRedis();
const N = MAX_AFTER;
/** Tasks leased and acked per round of the claim loops. */
const BATCH = 1000;
/**
 * Calls here carry thousands of tasks: on a shared 2-core machine one can wait past the default
 * 5 s deadline behind the others, which this file does not test (deadlines have tests of their own).
 */
const SLOW = { commandTimeout: 30_000 };

/** N tasks put in `queue`, their hashes in put order. */
async function many(s: Scheduler, queue: string, tag: string, options: object = {}): Promise<string[]> {
  const put = await s.putMany(Array.from({ length: N }, (_, i) => ({ data: { [tag]: i }, options: { queue, ...options } })));
  expect(put.every((r) => r.status === 'added')).toBe(true);
  return put.map((r) => r.hash);
}

/** Leases up to `count` tasks of `queue`, BATCH a call. */
async function claimAll(s: Scheduler, queue: string, count: number): Promise<Task[]> {
  const tasks: Task[] = [];
  while (tasks.length < count) {
    const batch = await s.claimMany(Math.min(BATCH, count - tasks.length), { queue });
    if (batch.length === 0) break;
    tasks.push(...batch);
  }
  return tasks;
}

/** Acks `tasks`, BATCH at a time (pipelined). */
async function ackAll(s: Scheduler, tasks: Task[]): Promise<void> {
  for (let i = 0; i < tasks.length; i += BATCH) {
    const acked = await Promise.all(tasks.slice(i, i + BATCH).map((t) => s.ack(t)));
    expect(acked.every(Boolean)).toBe(true);
  }
}

/** The dependency keys left under a prefix (none once every dependency is settled). */
async function depKeys(raw: RedisClientType, prefix: string): Promise<string[]> {
  return (await keysUnder(raw, prefix)).filter((k) => /:(after|dependents|blocked|deplist|settle|outbox)$/.test(k));
}

/** Runs a worker on each queue until `done`, then closes them; returns each hash run, in order. */
async function workUntil(s: Scheduler, queues: string[], done: (ran: string[]) => boolean, timeoutMs: number): Promise<string[]> {
  const ran: string[] = [];
  const workers = queues.map((queue) => s.work(async (t) => void ran.push(t.hash), { queue, concurrency: 200 }));
  try {
    await eventually(() => done(ran), timeoutMs);
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
  return ran;
}

const once = (ran: string[]) => new Set(ran).size === ran.length;

describe('fan-in: one task after 10,000', () => {
  it('in one queue: waits until the last of them is acked, then runs once', async () => {
    const s = await redis.scheduler(SLOW);
    const raw = await redis.raw();
    const parents = await many(s, 'in', 'p');
    const child = await s.put('child', { queue: 'in', after: parents });
    expect(child.status).toBe('added');
    expect((await s.get(child.hash, { queue: 'in' }))!.state).toBe('waiting');
    expect(await raw.zCard(`${s.prefix}:{in}:after`)).toBe(N);

    const tasks = await claimAll(s, 'in', N + 1);
    expect(tasks.map((t) => t.hash).sort()).toEqual([...parents].sort());
    await ackAll(s, tasks.slice(0, N - 1));
    expect((await s.get(child.hash, { queue: 'in' }))!.state).toBe('waiting');
    expect(await raw.zCard(`${s.prefix}:{in}:after`)).toBe(1);
    await ackAll(s, tasks.slice(N - 1));
    // Released by the last ack's own call.
    expect((await s.get(child.hash, { queue: 'in' }))!.state).toBe('ready');
    const last = await s.claimMany(10, { queue: 'in' });
    expect(last.map((t) => t.hash)).toEqual([child.hash]);
    // What it waited on, in put order. None was put with keepResult: an outcome is known only for
    // the newest done tasks the queue's history keeps (DONE_HISTORY.count), and says done.
    const deps = await last[0].dependencies();
    expect(deps.map((d) => d.hash)).toEqual(parents);
    expect(deps.every((d) => d.queue === 'in')).toBe(true);
    expect(deps.filter((d) => d.outcome !== null).length).toBe(DONE_HISTORY.count);
    expect(deps.every((d) => d.outcome === null || d.outcome.state === 'done')).toBe(true);
    await ackAll(s, last);
    expect(await depKeys(raw, s.prefix)).toEqual([]);
  });

  it('across queues: workers of both queues run the 10,000, then the one, once each', async () => {
    const s = await redis.scheduler(SLOW);
    const raw = await redis.raw();
    const parents = await many(s, 'x-up', 'p');
    const child = await s.put('child', { queue: 'x-down', after: parents.map((hash) => ({ queue: 'x-up', hash })) });
    // The put carried every registration before it returned.
    expect(await raw.zCard(`${s.prefix}:{x-up}:dependents`)).toBe(N);
    expect(await raw.zCard(`${s.prefix}:{x-down}:outbox`)).toBe(0);
    const ran = await workUntil(s, ['x-up', 'x-down'], (r) => r.includes(child.hash), 10_000);
    expect(ran.indexOf(child.hash)).toBe(N);
    expect(ran).toHaveLength(N + 1);
    expect(once(ran)).toBe(true);
    await eventually(async () => (await depKeys(raw, s.prefix)).length === 0);
  });
});

describe('fan-out: 10,000 tasks after one', () => {
  it('in one queue: none is ready before the one is acked, then all are, within a bounded time, each run once', async () => {
    const s = await redis.scheduler(SLOW);
    const raw = await redis.raw();
    const parent = await s.put('parent', { queue: 'out' });
    const children = await many(s, 'out', 'c', { after: [parent.hash] });
    expect(await raw.zCard(`${s.prefix}:{out}:blocked`)).toBe(N);
    expect(await s.stats({ queue: 'out' })).toMatchObject({ ready: 1, delayed: 0 });
    const [task] = await s.claimMany(10, { queue: 'out' });
    expect(task.hash).toBe(parent.hash);
    expect(await s.ack(task)).toBe(true);
    // Released a batch a call: the ack's call, then each claim (about 1 s for all here).
    const ran = await workUntil(s, ['out'], (r) => r.length >= N, 10_000);
    expect(ran.sort()).toEqual([...children].sort());
    expect(once(ran)).toBe(true);
    expect(await depKeys(raw, s.prefix)).toEqual([]);
  });

  it('across queues: the one acked in its queue releases all 10,000 in the other', async () => {
    const s = await redis.scheduler(SLOW);
    const raw = await redis.raw();
    const parent = await s.put('parent', { queue: 'y-up' });
    const children = await many(s, 'y-down', 'c', { after: [{ queue: 'y-up', hash: parent.hash }] });
    expect(await raw.zCard(`${s.prefix}:{y-up}:dependents`)).toBe(N);
    expect(await s.stats({ queue: 'y-down' })).toMatchObject({ ready: 0 });
    const ran = await workUntil(s, ['y-up', 'y-down'], (r) => r.length >= N + 1, 10_000);
    expect(ran[0]).toBe(parent.hash);
    expect(ran.slice(1).sort()).toEqual([...children].sort());
    expect(once(ran)).toBe(true);
    await eventually(async () => (await depKeys(raw, s.prefix)).length === 0);
  });

  it('the one going dead makes all 10,000 dead, each with a last error naming it, in at most a call per 100', async () => {
    const s = await redis.scheduler({ ...SLOW, deadMaxCount: 100_000 });
    const raw = await redis.raw();
    const parent = await s.put('doomed', { queue: 'dead', maxAttempts: 1 });
    const children = await many(s, 'dead', 'c', { after: [parent.hash] });
    const [task] = await s.claimMany(10, { queue: 'dead' });
    expect(await s.fail(task, { error: 'boom' })).toBe('dead');
    // The fail's call passes a batch down; each claim passes the next.
    let claims = 0;
    while ((await raw.zCard(`${s.prefix}:{dead}:blocked`)) > 0) {
      expect(await s.claimMany(10, { queue: 'dead' })).toEqual([]);
      expect(++claims).toBeLessThanOrEqual(N / 100);
    }
    expect(await s.stats({ queue: 'dead' })).toMatchObject({ dead: N + 1, ready: 0 });
    const error = `dependency dead/${parent.hash} dead`;
    for (const hash of [children[0], children[N / 2], children[N - 1]]) {
      expect(await s.get(hash, { queue: 'dead' })).toMatchObject({ state: 'dead', lastError: error });
    }
    // Dead tasks keep their list (for dependencies()); nothing else is left.
    expect(await depKeys(raw, s.prefix)).toEqual([`${s.prefix}:{dead}:deplist`]);
  });

  // Steps left in `settle` count as backlog on their own: a worker whose claims release no ready
  // task (dependents gone dead, or delayed) claims again at once, not after its 5 s idle bound
  // per batch of 100 (500 s for 10,000, as claim.lua once did).
  it('an idle worker passes a failure down to all 10,000 without sleeping between batches', async () => {
    const s = await redis.scheduler({ ...SLOW, deadMaxCount: 100_000 });
    const parent = await s.put('doomed', { queue: 'idle-dead', maxAttempts: 1 });
    await many(s, 'idle-dead', 'c', { after: [parent.hash] });
    const w = s.work(
      async () => {
        throw new Error('boom');
      },
      { queue: 'idle-dead' },
    );
    try {
      await eventually(async () => (await s.stats({ queue: 'idle-dead' })).dead === N + 1, 4000);
    } finally {
      await w.close();
    }
  });
});

describe('past one batch of steps', () => {
  it('a task after 10,000 goes dead when one of them does, and the rest forget it in the same call', async () => {
    const s = await redis.scheduler(SLOW);
    const raw = await redis.raw();
    const doomed = await s.put('doomed', { queue: 'in-dead', maxAttempts: 1 });
    const parents = await many(s, 'in-dead', 'p');
    const child = await s.put('child', { queue: 'in-dead', after: [...parents.slice(0, N - 1), doomed.hash] });
    expect(await raw.zCard(`${s.prefix}:{in-dead}:dependents`)).toBe(N);
    const [task] = await s.claimMany(1, { queue: 'in-dead' });
    expect(task.hash).toBe(doomed.hash);
    expect(await s.fail(task, { error: 'boom' })).toBe('dead');
    expect(await s.get(child.hash, { queue: 'in-dead' })).toMatchObject({ state: 'dead', lastError: `dependency in-dead/${doomed.hash} dead` });
    expect(await raw.zCard(`${s.prefix}:{in-dead}:dependents`)).toBe(0);
    expect(await raw.zCard(`${s.prefix}:{in-dead}:after`)).toBe(0);
    expect(await raw.lLen(`${s.prefix}:{in-dead}:settle`)).toBe(0);
  });

  it('a task cancelled while it waits on more than a batch, and put again at once, is released when they are done', async () => {
    const s = await redis.scheduler(SLOW);
    const raw = await redis.raw();
    const put = await s.putMany(Array.from({ length: 300 }, (_, i) => ({ data: { p: i }, options: { queue: 'again' } })));
    const parents = put.map((p) => p.hash);
    const child = await s.put('child', { queue: 'again', after: parents });
    expect(await s.cancel(child.hash, { queue: 'again' })).toBe(true);
    expect(await s.put('child', { queue: 'again', after: parents })).toMatchObject({ hash: child.hash, status: 'added' });
    expect(await raw.zCard(`${s.prefix}:{again}:dependents`)).toBe(300);
    await ackAll(s, await claimAll(s, 'again', 300));
    expect((await s.get(child.hash, { queue: 'again' }))!.state).toBe('ready');
  });
});
