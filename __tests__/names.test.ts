/**
 * Task names: put(data, { name }) and task.name, names in get() and list(), the name as part of a
 * task's identity, work({ [name]: handler }) routing (with '*' for the rest), a task whose name
 * has no handler failing with a typed error until it is dead, and bad names refused.
 */
import { UnknownTaskNameError, ValidationError, type Task } from '../lib';
import { eventually, keysUnder, useRedis } from './support/harness';

const redis = useRedis();

describe('task names', () => {
  it('keeps the name with the task: claim, get and list show it', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put({ to: 'ada' }, { name: 'send-email' });
    expect(await s.get(hash)).toMatchObject({ name: 'send-email', state: 'ready' });
    expect((await s.list('ready')).tasks.map((t) => t.name)).toEqual(['send-email']);
    const task = (await s.claim())!;
    expect(task).toMatchObject({ name: 'send-email', data: { to: 'ada' } });
    await s.ack(task);
    const plain = await s.put('unnamed');
    expect((await s.get(plain.hash))!.name).toBeNull();
    expect((await s.claim())!.name).toBeNull();
  });

  it('names the task in its events', async () => {
    const s = await redis.scheduler();
    const events = s.events({ from: 'start' })[Symbol.asyncIterator]();
    await s.put('e', { name: 'report' });
    await s.ack((await s.claim())!);
    await s.put('plain');
    await s.fail((await s.claim())!, { error: 'no' });
    const seen = [(await events.next()).value, (await events.next()).value];
    await events.return?.();
    expect(seen.map((e) => [e.type, e.name])).toEqual([
      ['completed', 'report'],
      ['failed', null],
    ]);
  });

  it('counts outcomes by name for stats() and metrics, bounded, a task named __proto__ too', async () => {
    const s = await redis.scheduler({ queue: 'by-name' });
    await s.putMany([{ data: 1, options: { name: 'resize' } }, { data: 2, options: { name: 'resize' } }, { data: 3, options: { name: '__proto__', maxAttempts: 1 } }, { data: 4 }]);
    for (let i = 0; i < 2; i++) await s.ack((await s.claim())!);
    expect(await s.fail((await s.claim())!, { error: 'no' })).toBe('dead');
    await s.ack((await s.claim())!);
    const { byName, totals } = await s.stats();
    expect(Object.keys(byName).sort()).toEqual(['__proto__', 'resize']);
    expect(byName.resize).toEqual({ completed: 2, failed: 0, dead: 0 });
    expect(Object.getOwnPropertyDescriptor(byName, '__proto__')!.value).toEqual({ completed: 0, failed: 1, dead: 1 });
    expect(totals).toMatchObject({ completed: 3, failed: 1, dead: 1 });
    // Past 300 name-outcome pairs, new names count under '' (others).
    const many = await redis.scheduler({ queue: 'many-names' });
    await many.putMany(Array.from({ length: 305 }, (_, i) => ({ data: i, options: { name: `n${i}` } })));
    for (let i = 0; i < 305; i++) await many.ack((await many.claim())!);
    const named = (await many.stats()).byName;
    expect(Object.keys(named)).toHaveLength(301);
    expect(named['']).toEqual({ completed: 5, failed: 0, dead: 0 });
  });

  it('is part of the identity: the same data under two names is two tasks, under one name one', async () => {
    const s = await redis.scheduler();
    const plain = await s.put({ user: 7 });
    const email = await s.put({ user: 7 }, { name: 'welcome-email' });
    const sms = await s.put({ user: 7 }, { name: 'welcome-sms' });
    expect(new Set([plain.hash, email.hash, sms.hash]).size).toBe(3);
    expect(await s.put({ user: 7 }, { name: 'welcome-email' })).toMatchObject({ hash: email.hash, status: 'duplicate' });
    expect(await s.put({ user: 7 })).toMatchObject({ hash: plain.hash, status: 'duplicate' });
    // With a key, the name still tells tasks apart.
    const a = await s.put(1, { key: 'k', name: 'a' });
    const b = await s.put(2, { key: 'k', name: 'b' });
    expect(a.hash).not.toBe(b.hash);
    expect(await s.put(3, { key: 'k', name: 'a' })).toMatchObject({ hash: a.hash, status: 'duplicate' });
  });

  it('routes each task to the handler of its name, the rest to *', async () => {
    const s = await redis.scheduler();
    const ran: string[] = [];
    await s.putMany([{ data: 1, options: { name: 'resize' } }, { data: 2, options: { name: 'send-email' } }, { data: 3 }, { data: 4, options: { name: 'other' } }]);
    const worker = s.work({
      resize: async (t) => void ran.push(`resize:${t.data}`),
      'send-email': async (t) => void ran.push(`send-email:${t.data}`),
      '*': async (t) => void ran.push(`*:${t.name}:${t.data}`),
    });
    await eventually(() => ran.length === 4);
    await worker.close();
    expect(ran.sort()).toEqual(['*:null:3', '*:other:4', 'resize:1', 'send-email:2']);
  });

  it('fails a task whose name has no handler with a typed error, until it is dead and says why', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('x', { name: 'unknown-kind', maxAttempts: 2 });
    const errors: unknown[] = [];
    const worker = s.work({ resize: async () => {} }, { backoff: () => 0, onError: (err: unknown) => void errors.push(err) });
    await eventually(async () => (await s.get(hash))?.state === 'dead', 5000);
    await worker.close();
    const info = (await s.get(hash))!;
    expect(info.attempts).toBe(2);
    expect(info.lastError).toContain('UnknownTaskNameError');
    expect(info.lastError).toContain('"unknown-kind"');
    const direct = new UnknownTaskNameError('h', 'n', ['a']);
    expect(direct).toMatchObject({ name: 'UnknownTaskNameError', code: 'ERR_UNKNOWN_TASK_NAME', taskName: 'n' });
  });

  it('refuses a bad name or handler map, naming the field, and writes nothing', async () => {
    const s = await redis.scheduler({ prefix: 'badnames' });
    for (const name of ['', 'x'.repeat(129), 'x'.repeat(1000), 'a|b', 'tab\there', 42]) {
      await expect(s.put('data', { name } as never)).rejects.toMatchObject({ name: 'ValidationError', field: 'options.name' });
    }
    await expect(s.putMany([{ data: 1, options: { name: '' } }])).rejects.toMatchObject({ field: 'items[0].options.name' });
    expect(await keysUnder(await redis.raw(), 'badnames')).toEqual([]);
    expect(() => s.work({})).toThrow(ValidationError);
    expect(() => s.work({ a: 1 } as never)).toThrow(expect.objectContaining({ field: 'handler["a"]' }));
    expect(() => s.work([] as never)).toThrow(expect.objectContaining({ field: 'handler' }));
  });
});

// Typed: a handler of a map gets the task with its name.
export const typed = (t: Task<{ n: number }>): string | null => t.name;
