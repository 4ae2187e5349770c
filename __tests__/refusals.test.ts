/**
 * Refused changes say why: reschedule, changePriority, cancel and redrive with `explain: true`
 * answer a Change from the script's own reply (missing, active with its worker, dead; pending for
 * redrive), and without it the boolean they always answered.
 */
import { ValidationError, type Change, type Scheduler } from '../lib';
import type { RedriveRefusal } from '../lib/types/task-calls';
import { queueKeys } from '../lib/domain/keys';
import { useRedis } from './support/harness';

const redis = useRedis();

/** A task of each state a change can meet: pending (delayed), active (with its worker), dead. */
async function tasks(s: Scheduler, queue: string) {
  const pending = (await s.put('pending', { queue, delay: 60_000 })).hash;
  const active = (await s.put('active', { queue })).hash;
  expect((await s.claim({ queue }))?.hash).toBe(active);
  const dead = (await s.put('dead', { queue, maxAttempts: 1 })).hash;
  expect(await s.fail((await s.claim({ queue }))!, { error: 'boom' })).toBe('dead');
  const worker = (await s.get(active, { queue }))?.worker;
  expect(worker).toEqual(expect.any(String));
  return { pending, active, dead, worker: worker! };
}

const MISSING = 'f'.repeat(32);

describe('reschedule with explain', () => {
  it('answers done, or why not: missing, active (and by whom), dead', async () => {
    const s = await redis.scheduler();
    const { pending, active, dead, worker } = await tasks(s, 'q');
    const at = Date.now() + 120_000;
    expect(await s.reschedule(pending, at, { queue: 'q', explain: true })).toEqual({ done: true });
    expect(await s.get(pending, { queue: 'q' })).toMatchObject({ state: 'delayed', runAt: at });
    expect(await s.reschedule(MISSING, at, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'missing' });
    expect(await s.reschedule(active, at, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'active', worker });
    expect(await s.reschedule(dead, at, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'dead' });
    expect(await s.stats({ queue: 'q' })).toMatchObject({ delayed: 1, active: 1, dead: 1 });
  });

  it('still answers a boolean without it', async () => {
    const s = await redis.scheduler();
    const { pending, active, dead } = await tasks(s, 'q');
    const at = Date.now() + 120_000;
    expect(await s.reschedule(pending, at, { queue: 'q' })).toBe(true);
    expect(await s.reschedule(pending, at, { queue: 'q', explain: false })).toBe(true);
    for (const hash of [MISSING, active, dead]) expect(await s.reschedule(hash, at, { queue: 'q' })).toBe(false);
  });
});

describe('changePriority with explain', () => {
  it('answers done for a move, a kept level and the same level, or why not', async () => {
    const s = await redis.scheduler();
    const { pending, active, dead, worker } = await tasks(s, 'q');
    const ready = (await s.put('ready', { queue: 'q' })).hash;
    expect(await s.changePriority(ready, 5, { queue: 'q', explain: true })).toEqual({ done: true });
    expect(await s.changePriority(ready, 5, { queue: 'q', explain: true })).toEqual({ done: true });
    expect(await s.changePriority(pending, 3, { queue: 'q', explain: true })).toEqual({ done: true });
    expect(await s.get(ready, { queue: 'q' })).toMatchObject({ level: 5 });
    expect(await s.get(pending, { queue: 'q' })).toMatchObject({ level: 3 });
    expect(await s.changePriority(MISSING, 3, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'missing' });
    expect(await s.changePriority(active, 3, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'active', worker });
    expect(await s.changePriority(dead, 3, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'dead' });
    for (const hash of [MISSING, active, dead]) expect(await s.changePriority(hash, 3, { queue: 'q' })).toBe(false);
    expect(await s.changePriority(ready, 1, { queue: 'q' })).toBe(true);
  });
});

describe('cancel with explain', () => {
  it('answers done for a pending or a dead task, or why not: missing, active (and by whom)', async () => {
    const s = await redis.scheduler();
    const { pending, active, dead, worker } = await tasks(s, 'q');
    expect(await s.cancel(active, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'active', worker });
    expect(await s.cancel(pending, { queue: 'q', explain: true })).toEqual({ done: true });
    // A dead task can be cancelled: 'dead' is no refusal of cancel's.
    expect(await s.cancel(dead, { queue: 'q', explain: true })).toEqual({ done: true });
    expect(await s.cancel(pending, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'missing' });
    expect(await s.get(pending, { queue: 'q' })).toBeNull();
    expect(await s.get(dead, { queue: 'q' })).toBeNull();
    expect(await s.get(active, { queue: 'q' })).toMatchObject({ state: 'active' });
    expect(await s.cancel(active, { queue: 'q' })).toBe(false);
    expect(await s.cancel(MISSING, { queue: 'q' })).toBe(false);
  });

  it('carries the steps a cancel leaves for other queues before it answers', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const up = (await s.put('up', { queue: 'x-up' })).hash;
    const down = (await s.put('down', { queue: 'x-down', after: [{ queue: 'x-up', hash: up }] })).hash;
    const dependents = queueKeys(s.prefix, 'x-up').dependents;
    expect(await raw.zCard(dependents)).toBe(1);
    expect(await s.cancel(down, { queue: 'x-down', explain: true })).toEqual({ done: true });
    expect(await raw.zCard(dependents)).toBe(0);
    expect(await raw.zCard(queueKeys(s.prefix, 'x-down').outbox)).toBe(0);
  });
});

describe('redrive with explain', () => {
  it('answers done for a dead task, or why not: missing, active (and by whom), pending', async () => {
    const s = await redis.scheduler();
    const { pending, active, dead, worker } = await tasks(s, 'q');
    const ready = (await s.put('ready', { queue: 'q' })).hash;
    const waiting = (await s.put('waiting', { queue: 'q', after: [{ queue: 'q', hash: pending }] })).hash;
    expect(await s.redrive(dead, { queue: 'q', explain: true })).toEqual({ done: true });
    expect(await s.get(dead, { queue: 'q' })).toMatchObject({ state: 'ready', attempts: 0 });
    // Re-driven once, it is no longer dead: the second time is refused, and says so.
    expect(await s.redrive(dead, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'pending' });
    expect(await s.redrive(MISSING, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'missing' });
    expect(await s.redrive(active, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'active', worker });
    for (const hash of [pending, ready, waiting]) expect(await s.redrive(hash, { queue: 'q', explain: true })).toEqual({ done: false, reason: 'pending' });
    expect(await s.stats({ queue: 'q' })).toMatchObject({ delayed: 1, ready: 2, active: 1, waiting: 1, dead: 0 });
  });

  it('still answers a boolean without it, and checks the option as the other changes do', async () => {
    const s = await redis.scheduler();
    const { pending, active, dead } = await tasks(s, 'q');
    for (const hash of [MISSING, active, pending]) expect(await s.redrive(hash, { queue: 'q' })).toBe(false);
    expect(await s.redrive(dead, { queue: 'q', explain: false })).toBe(true);
    const err = await s.redrive(dead, { queue: 'q', explain: 'yes' } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe('options.explain');
    // Typed: a redrive's reasons are its own.
    const change: Change<RedriveRefusal> = await s.redrive(MISSING, { queue: 'q', explain: true });
    expect(change.done ? 'done' : change.reason).toBe('missing');
  });
});

describe('the explain option', () => {
  it('is checked like every option: a boolean, next to queue and nothing else', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('x', { delay: 60_000 });
    const bad: Array<[() => Promise<unknown>, string]> = [
      [() => s.cancel(hash, { explain: 'yes' } as never), 'options.explain'],
      [() => s.reschedule(hash, Date.now(), { explain: 1 } as never), 'options.explain'],
      [() => s.changePriority(hash, 2, { queue: 'q', why: true } as never), 'options.why'],
    ];
    for (const [call, field] of bad) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe(field);
    }
    expect(await s.get(hash)).toMatchObject({ state: 'delayed', level: 0 });
    // A Change is typed: the reason (and worker) only on a refusal.
    const change: Change = await s.cancel(hash, { explain: true });
    expect(change.done ? 'done' : change.reason).toBe('done');
  });
});
