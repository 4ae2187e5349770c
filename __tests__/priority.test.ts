/**
 * changePriority: a pending task moves to another priority level after put (ready, delayed,
 * waiting, grouped and parked tasks); active, dead and unknown tasks are refused; bad input is a
 * typed error that writes nothing; and `docket priority`, the same from the command line.
 */
import type { RedisClientType } from 'redis';
import { ValidationError, type Scheduler } from '../lib';
import { main, type Io } from '../lib/surfaces/cli/main';
import { keysUnder, serverNow, sleep, testUrl, useRedis } from './support/harness';

const redis = useRedis();

/** Claims every ready task one at a time: their data, in claim order. */
async function drain(s: Scheduler, queue?: string): Promise<unknown[]> {
  const order = [];
  for (let task = await s.claim({ queue }); task; task = await s.claim({ queue })) order.push(task.data);
  return order;
}

/** Every key of a prefix with its contents, to show that a call wrote nothing. */
async function snapshot(raw: RedisClientType, prefix: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const key of await keysUnder(raw, prefix)) {
    out[key] = (await raw.sendCommand<Buffer>(['DUMP', key], { returnBuffers: true })).toString('hex');
  }
  return out;
}

describe('a ready task', () => {
  it('moved up is claimed before the lower levels, behind the tasks already at its new level', async () => {
    const s = await redis.scheduler();
    await s.put('n1');
    await s.put('l3', { priority: 3 });
    await s.put('l5a', { priority: 5 });
    const target = await s.put('n2');
    await s.put('l5b', { priority: 5 });
    expect(await s.changePriority(target.hash, 5)).toBe(true);
    expect(await s.get(target.hash)).toMatchObject({ state: 'ready', level: 5, priority: true });
    expect(await drain(s)).toEqual(['l5a', 'l5b', 'n2', 'l3', 'n1']);
  });

  it('moved down goes to the tail of the lower level, and to the normal tasks with false or 0', async () => {
    const s = await redis.scheduler();
    const x = await s.put('x', { priority: 9 });
    await s.put('y', { priority: 9 });
    await s.put('z', { priority: 2 });
    const w = await s.put('w', { priority: true });
    await s.put('n');
    expect(await s.changePriority(x.hash, 2)).toBe(true);
    expect(await s.changePriority(w.hash, false)).toBe(true);
    expect(await s.get(w.hash)).toMatchObject({ level: 0, priority: false });
    expect(await drain(s)).toEqual(['y', 'z', 'x', 'n', 'w']);
  });

  it('moves a normal task to level 9 with true, and back to the tail of the normal tasks with 0', async () => {
    const s = await redis.scheduler();
    const a = await s.put('a');
    await s.put('b');
    const c = await s.put('c');
    expect(await s.changePriority(c.hash, true)).toBe(true);
    expect((await s.get(c.hash))?.level).toBe(9);
    expect(await s.changePriority(a.hash, true)).toBe(true);
    expect(await s.changePriority(a.hash, 0)).toBe(true);
    expect(await drain(s)).toEqual(['c', 'b', 'a']);
  });

  it('answers true and keeps its place when it is already at that level', async () => {
    const s = await redis.scheduler();
    const a = await s.put('a', { priority: 4 });
    await s.put('b', { priority: 4 });
    const n = await s.put('n');
    await s.put('m');
    expect(await s.changePriority(a.hash, 4)).toBe(true);
    expect(await s.changePriority(n.hash, false)).toBe(true);
    expect(await drain(s)).toEqual(['a', 'b', 'n', 'm']);
  });

  it('works on the queue it is told', async () => {
    const s = await redis.scheduler();
    await s.put('first', { queue: 'other' });
    const late = await s.put('late', { queue: 'other' });
    expect(await s.changePriority(late.hash, 1)).toBe(false);
    expect(await s.changePriority(late.hash, 1, { queue: 'other' })).toBe(true);
    expect(await drain(s, 'other')).toEqual(['late', 'first']);
  });
});

describe('the entry a move, cancel or reschedule leaves behind (a ghost: O(log N), no LREM)', () => {
  /** The raw Redis view of queue `default`: list lengths and the ghost count. */
  async function view(raw: RedisClientType, prefix: string) {
    const k = (suffix: string) => `${prefix}:{default}:${suffix}`;
    return {
      ready: await raw.lLen(k('ready')),
      ready5: await raw.lLen(k('ready5')),
      ghosts: Number((await raw.hGet(k('moved'), '')) ?? 0),
      marked: (await raw.zScore(k('levels'), 'm')) !== null,
    };
  }

  it('stays in the old list, is counted as a ghost, and is skipped by claims; nothing is left after', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const puts = await s.putMany(Array.from({ length: 2000 }, (_, i) => ({ data: i })));
    // The last of 2000: an LREM would scan the whole list to find it; the move does not touch it.
    expect(await s.changePriority(puts[1999].hash, 5)).toBe(true);
    expect(await view(raw, s.prefix)).toEqual({ ready: 2000, ready5: 1, ghosts: 1, marked: true });
    expect(await s.stats()).toMatchObject({ ready: 2000 });
    const page = await s.list('ready', { limit: 3 });
    expect(page.total).toBe(2000);
    expect(page.tasks.map((t) => t.data)).toEqual([1999, 0, 1]);
    const order = await drain(s);
    expect(order).toHaveLength(2000);
    expect(order[0]).toBe(1999);
    expect(order.slice(1)).toEqual(Array.from({ length: 1999 }, (_, i) => i));
    expect(await view(raw, s.prefix)).toEqual({ ready: 0, ready5: 0, ghosts: 0, marked: false });
    expect(await raw.exists(`${s.prefix}:{default}:moved`)).toBe(0);
  });

  it('moved away and back: claimed once, at the tail of the level it came back to', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.put('a');
    const b = await s.put('b');
    await s.put('c');
    expect(await s.changePriority(b.hash, 5)).toBe(true);
    expect(await s.changePriority(b.hash, 0)).toBe(true);
    // ready: a, b (ghost), c, b; ready5: b (ghost).
    expect(await view(raw, s.prefix)).toEqual({ ready: 4, ready5: 1, ghosts: 2, marked: true });
    expect(await s.stats()).toMatchObject({ ready: 3 });
    const page = await s.list('ready');
    expect(page.total).toBe(3);
    expect(page.tasks.map((t) => t.data)).toEqual(['a', 'c', 'b']);
    expect(await drain(s)).toEqual(['a', 'c', 'b']);
    expect(await view(raw, s.prefix)).toEqual({ ready: 0, ready5: 0, ghosts: 0, marked: false });
  });

  it('of a task cancelled, or rescheduled, after its move: neither runs it nor loses the others', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const a = await s.put('a');
    const b = await s.put('b');
    await s.put('c');
    expect(await s.changePriority(a.hash, 5)).toBe(true);
    expect(await s.changePriority(b.hash, 5)).toBe(true);
    expect(await s.cancel(a.hash)).toBe(true);
    expect(await s.reschedule(b.hash, (await s.time()) + 60_000)).toBe(true);
    expect(await s.stats()).toMatchObject({ ready: 1, delayed: 1 });
    expect(await drain(s)).toEqual(['c']);
    expect(await view(raw, s.prefix)).toEqual({ ready: 0, ready5: 0, ghosts: 0, marked: false });
    expect(await s.get(b.hash)).toMatchObject({ state: 'delayed', level: 5 });
  });

  it('of a task that ran and was put again: the new task runs once', async () => {
    const s = await redis.scheduler();
    const x = await s.put('x');
    expect(await s.changePriority(x.hash, 3)).toBe(true);
    const first = (await s.claim())!;
    expect(first.data).toBe('x');
    expect(await s.ack(first)).toBe(true);
    // Its ghost is still in `ready`, ahead of the new entry: one of the two is a ghost.
    expect((await s.put('x')).hash).toBe(x.hash);
    expect(await s.stats()).toMatchObject({ ready: 1 });
    expect(await drain(s)).toEqual(['x']);
  });

  it('of a cancelled ready task: the list is not searched, and the task put again runs once', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.put('a');
    const b = await s.put('b');
    await s.put('c');
    expect(await s.cancel(b.hash)).toBe(true);
    expect(await view(raw, s.prefix)).toEqual({ ready: 3, ready5: 0, ghosts: 1, marked: true });
    expect(await s.stats()).toMatchObject({ ready: 2 });
    expect((await s.list('ready')).tasks.map((t) => t.data)).toEqual(['a', 'c']);
    expect((await s.put('b')).hash).toBe(b.hash);
    expect((await s.list('ready')).tasks.map((t) => t.data)).toEqual(['a', 'c', 'b']);
    expect(await drain(s)).toEqual(['a', 'c', 'b']);
    expect(await view(raw, s.prefix)).toEqual({ ready: 0, ready5: 0, ghosts: 0, marked: false });
  });

  it('of a ready task rescheduled into the future: it runs once, when due, behind the tasks ahead', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const a = await s.put('a');
    await s.put('b');
    expect(await s.reschedule(a.hash, (await s.time()) + 150)).toBe(true);
    expect(await view(raw, s.prefix)).toEqual({ ready: 2, ready5: 0, ghosts: 1, marked: true });
    expect(await s.stats()).toMatchObject({ ready: 1, delayed: 1 });
    await sleep(250);
    // Promoted by this claim to the tail, behind its ghost, which the claim drops on the way.
    expect(await drain(s)).toEqual(['b', 'a']);
    expect(await view(raw, s.prefix)).toEqual({ ready: 0, ready5: 0, ghosts: 0, marked: false });
  });

  it('is dropped by a clean of ready tasks, which leaves the moved task alone while it runs', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const a = await s.put('a');
    await s.put('b');
    expect(await s.changePriority(a.hash, 5)).toBe(true);
    const running = (await s.claim())!;
    expect(running.data).toBe('a');
    // `ready` holds a's ghost and b: only b is a ready task to clean.
    expect(await s.clean({ state: 'ready' })).toBe(1);
    expect(await view(raw, s.prefix)).toEqual({ ready: 0, ready5: 0, ghosts: 0, marked: false });
    expect(await s.ack(running)).toBe(true);
    expect(await s.stats()).toMatchObject({ ready: 0, active: 0 });
  });
});

describe('a task not yet ready', () => {
  it('delayed: keeps its run-at and takes the new level when it is due', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const later = await s.put('later', { delay: 300 });
    await s.put('n1');
    const before = (await s.get(later.hash))!;
    expect(await s.changePriority(later.hash, true)).toBe(true);
    expect(await s.get(later.hash)).toMatchObject({ state: 'delayed', level: 9, runAt: before.runAt });
    await s.put('n2');
    const wait = Math.max(0, before.runAt - (await serverNow(raw))) + 50;
    await new Promise((resolve) => setTimeout(resolve, wait));
    expect(await drain(s)).toEqual(['later', 'n1', 'n2']);
  });

  it('waiting on its dependencies: takes the new level when they are done', async () => {
    const s = await redis.scheduler();
    const a = await s.put('a');
    const waiting = await s.put('w', { after: [a.hash] });
    await s.put('n1');
    expect(await s.changePriority(waiting.hash, 4)).toBe(true);
    expect(await s.get(waiting.hash)).toMatchObject({ state: 'waiting', level: 4 });
    const task = (await s.claim())!;
    expect(task.data).toBe('a');
    expect(await s.ack(task)).toBe(true);
    expect(await drain(s)).toEqual(['w', 'n1']);
  });
});

describe('a task of a fair group', () => {
  it('changes lane within its group when the level crosses 0, and keeps its place between levels above 0', async () => {
    const s = await redis.scheduler();
    for (let i = 0; i < 3; i++) await s.put(`a${i}`, { group: 'a' });
    const urgent = await s.put('u', { group: 'a', priority: true });
    const a3 = await s.put('a3', { group: 'a' });
    // a3 goes to the tail of a's priority lane (behind u's tag), u to the tail of a's normal lane.
    expect(await s.changePriority(a3.hash, 5)).toBe(true);
    expect(await s.changePriority(urgent.hash, false)).toBe(true);
    // Between levels above 0 only its record changes: the lane is the same.
    expect(await s.changePriority(a3.hash, 2)).toBe(true);
    expect(await s.get(a3.hash)).toMatchObject({ state: 'ready', level: 2, group: 'a' });
    const order = (await s.claimMany(10)).map((t) => t.data as string);
    // Round 1: a0; round 2: a1 and a3 (the priority lane); round 3: a2; then u, behind a's backlog.
    expect(order[0]).toBe('a0');
    expect(order.slice(1, 3).sort()).toEqual(['a1', 'a3']);
    expect(order.slice(3)).toEqual(['a2', 'u']);
  });

  it("moves a task parked by its group's limit ahead of the group's parked backlog", async () => {
    const s = await redis.scheduler();
    await s.limitGroups(1, { group: 'p' });
    const puts = [];
    for (let i = 0; i < 3; i++) puts.push(await s.put(`p${i}`, { group: 'p' }));
    const [first, ...more] = await s.claimMany(10);
    expect(first.data).toBe('p0');
    expect(more).toEqual([]);
    const p2 = puts[2];
    expect(await s.changePriority(p2.hash, 7)).toBe(true);
    expect(await s.claimMany(10)).toEqual([]);
    expect(await s.stats()).toMatchObject({ ready: 2, active: 1 });
    expect(await s.ack(first)).toBe(true);
    expect((await s.claimMany(10)).map((t) => t.data)).toEqual(['p2']);
  });
});

describe('refusals', () => {
  it('answers false for an active task and leaves its level alone', async () => {
    const s = await redis.scheduler();
    const x = await s.put('x', { priority: 2 });
    const task = (await s.claim())!;
    expect(await s.changePriority(x.hash, 9)).toBe(false);
    expect(await s.get(x.hash)).toMatchObject({ state: 'active', level: 2 });
    expect(await s.fail(task, { retryIn: 0 })).toBe('retry');
    expect(await s.get(x.hash)).toMatchObject({ level: 2 });
  });

  it('answers false for a dead or unknown task, and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const d = await s.put('d', { maxAttempts: 1 });
    expect(await s.fail((await s.claim())!)).toBe('dead');
    const before = await snapshot(raw, s.prefix);
    expect(await s.changePriority(d.hash, 3)).toBe(false);
    expect(await s.changePriority('no-such-task', 3)).toBe(false);
    expect(await snapshot(raw, s.prefix)).toEqual(before);
  });

  it('rejects bad input with a ValidationError naming the field, and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const x = await s.put('x');
    const before = await snapshot(raw, s.prefix);
    const bad: Array<[unknown, unknown, unknown, string]> = [
      [x.hash, 10, undefined, 'priority'],
      [x.hash, -1, undefined, 'priority'],
      [x.hash, 2.5, undefined, 'priority'],
      [x.hash, 'high', undefined, 'priority'],
      [x.hash, undefined, undefined, 'priority'],
      [undefined, 3, undefined, 'hash'],
      ['', 3, undefined, 'hash'],
      [x.hash, 3, { queue: '' }, 'options.queue'],
      [x.hash, 3, { priority: 3 }, 'options.priority'],
    ];
    for (const [hash, priority, options, field] of bad) {
      const err = await s.changePriority(hash as string, priority as number, options as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe(field);
    }
    // The same check and message as put's option.
    const asPut = await s.put('y', { priority: 10 }).catch((e: unknown) => e as Error);
    await expect(s.changePriority(x.hash, 10)).rejects.toThrow(asPut instanceof Error ? asPut.message.replace(/^options\./, '') : 'never');
    expect(await snapshot(raw, s.prefix)).toEqual(before);
  });
});

describe('docket priority', () => {
  /** Runs the CLI in-process on the scheduler's Redis and prefix. */
  async function docket(s: Scheduler & { prefix: string }, ...args: string[]) {
    const result = { code: -1, stdout: '', stderr: '' };
    const io: Io = { stdout: { write: (t: string) => (result.stdout += t) }, stderr: { write: (t: string) => (result.stderr += t) }, env: {} };
    result.code = await main([...args, '--url', testUrl(), '--prefix', s.prefix], io);
    return result;
  }

  it('moves a task to a level, refuses an active one with exit 1 and a bad level with exit 2', async () => {
    const s = await redis.scheduler();
    const active = await s.put('active', { queue: 'q' });
    await s.claim({ queue: 'q' });
    await s.put('n', { queue: 'q' });
    const { hash } = await s.put('x', { queue: 'q' });
    expect(await docket(s, 'priority', 'q', hash, '7')).toEqual({ code: 0, stdout: `moved ${hash} in queue 'q' to priority level 7\n`, stderr: '' });
    expect(JSON.parse((await docket(s, 'priority', 'q', hash, '0', '--json')).stdout)).toEqual({ queue: 'q', hash, level: 0 });
    expect(await docket(s, 'priority', 'q', hash, '3')).toMatchObject({ code: 0 });
    expect(await docket(s, 'priority', 'q', active.hash, '3')).toMatchObject({ code: 1, stderr: expect.stringContaining(': it is active (leased by ') });
    expect(await docket(s, 'priority', 'q', 'nope', '3')).toMatchObject({ code: 1, stderr: "docket: no task nope in queue 'q'\n" });
    expect(await docket(s, 'priority', 'q', hash, 'high')).toMatchObject({ code: 2, stderr: expect.stringContaining("bad <level> 'high'") });
    expect(await docket(s, 'priority', 'q', hash, '10')).toMatchObject({ code: 2 });
    expect(await drain(s, 'q')).toEqual(['x', 'n']);
  });
});
