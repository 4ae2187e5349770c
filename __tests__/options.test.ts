/**
 * Bad input: every bad call rejects with a typed error that names the field, and writes nothing.
 */
import type { z } from 'zod';
import { ClosedError, PayloadTooLargeError, ValidationError, createScheduler, type ClaimOptions, type FailOptions, type PutOptions, type SchedulerOptions, type WorkOptions } from '../lib';
import type { claimOptions, failOptions, putOptions, schedulerOptions, workOptions } from '../lib/domain/options';
import { keysUnder, testUrl, uniquePrefix, useRedis } from './support/harness';

const redis = useRedis();

async function refused(call: () => Promise<unknown> | unknown, field: string, type: new (...args: never[]) => Error = ValidationError) {
  let error: unknown;
  try {
    await call();
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(type);
  expect((error as ValidationError).field).toBe(field);
  expect((error as ValidationError).message).toContain(field);
  expect((error as ValidationError).code).toMatch(/^ERR_/);
}

describe('the public option types', () => {
  it('are accepted by the zod schemas that check them (a compile-time check)', () => {
    // If an interface and its schema drift apart, `npm test`'s type check fails here.
    const put: z.input<typeof putOptions> = {} as PutOptions;
    const claim: z.input<typeof claimOptions> = {} as ClaimOptions;
    const fail: z.input<typeof failOptions> = {} as FailOptions;
    const work: z.input<typeof workOptions> = {} as WorkOptions;
    const { hash: _hash, ...rest } = {} as SchedulerOptions;
    const scheduler: z.input<typeof schedulerOptions> = rest;
    expect([put, claim, fail, work, scheduler]).toHaveLength(5);
  });
});

describe('bad input to put', () => {
  const cases: Array<[string, unknown, unknown, string]> = [
    ['a misspelled option', 'x', { dealy: 5 }, 'options.dealy'],
    ['a negative delay', 'x', { delay: -1 }, 'options.delay'],
    ['a delay that is not a number', 'x', { delay: '5s' }, 'options.delay'],
    ['a Duration with a misspelled unit', 'x', { delay: { minute: 5 } }, 'options.delay.minute'],
    ['delay and at together', 'x', { delay: 5, at: Date.now() }, 'options.at'],
    ['an invalid Date', 'x', { at: new Date('nope') }, 'options.at'],
    ['a zero expire', 'x', { expire: 0 }, 'options.expire'],
    ['a priority level above 9', 'x', { priority: 10 }, 'options.priority'],
    ['a fractional priority level', 'x', { priority: 1.5 }, 'options.priority'],
    ['a priority that is a string', 'x', { priority: 'high' }, 'options.priority'],
    ['a fractional maxAttempts', 'x', { maxAttempts: 1.5 }, 'options.maxAttempts'],
    ['a zero maxAttempts', 'x', { maxAttempts: 0 }, 'options.maxAttempts'],
    ['an empty key', 'x', { key: '' }, 'options.key'],
    ['a queue name with braces', 'x', { queue: 'a{b}' }, 'options.queue'],
    ['a queue name with a glob', 'x', { queue: 'a*' }, 'options.queue'],
    ['an empty queue name', 'x', { queue: '' }, 'options.queue'],
    ['a queue name over 128 characters', 'x', { queue: 'q'.repeat(129) }, 'options.queue'],
    ['BigInt data', { n: 1n }, {}, 'data.n'],
    ['NaN data', NaN, {}, 'data'],
    ['Infinity data', { x: Infinity }, {}, 'data.x'],
    ['a function in data', { f() {} }, {}, 'data.f'],
    ['a symbol in data', { s: Symbol('x') }, {}, 'data.s'],
    ['top-level undefined', undefined, {}, 'data'],
    // issue 21: a run-at no Date can show took the dashboard and the CLI down.
    ['a run-at of 1e300', 'x', { at: 1e300 }, 'options.at'],
    ['a run-at after the year 4999', 'x', { at: Date.UTC(5000, 0, 1) }, 'options.at'],
    ['a delay of 1e300 ms', 'x', { delay: 1e300 }, 'options.delay'],
    ['a delay of a thousand years', 'x', { delay: { years: 1000 } }, 'options.delay'],
    ['an expire of 1e300 ms', 'x', { expire: 1e300 }, 'options.expire'],
    // issue 21: lone surrogates become U+FFFD in Redis, so 'k\ud800' and 'k\udfff' were one task.
    ['a key with a lone high surrogate', 'x', { key: 'k\ud800' }, 'options.key'],
    ['a key with a lone low surrogate', 'x', { key: 'k\udfff' }, 'options.key'],
    ['a queue name with a lone surrogate', 'x', { queue: 'q\ud800' }, 'options.queue'],
    ['a group name with a lone surrogate', 'x', { group: 'g\udc00' }, 'options.group'],
  ];

  it('accepts well-formed keys outside the BMP, and keeps keys that differ apart', async () => {
    const s = await redis.scheduler();
    const a = await s.put('x', { key: 'k\ud83d\ude00' });
    const b = await s.put('x', { key: 'k\ud83d\ude01' });
    expect(a.added && b.added && a.hash !== b.hash).toBe(true);
  });

  it('accepts a run-at at the end of the year 4999, and reschedule refuses one past it', async () => {
    const s = await redis.scheduler();
    const { hash, runAt } = await s.put('far', { at: Date.UTC(4999, 11, 31) });
    expect(runAt).toBe(Date.UTC(4999, 11, 31));
    await refused(() => s.reschedule(hash, 1e300), 'at');
  });

  it.each(cases)('refuses %s, naming the field, and writes nothing', async (_what, data, options, field) => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await refused(() => s.put(data as never, options as never), field);
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });

  it('refuses cyclic data', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const data: Record<string, unknown> = {};
    data.me = data;
    await refused(() => s.put(data as never), 'data.me');
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });

  it('refuses a payload over the size limit before any I/O', async () => {
    const s = await redis.scheduler({ maxPayloadBytes: 1024 });
    const raw = await redis.raw();
    await refused(() => s.put('x'.repeat(1100)), 'data', PayloadTooLargeError);
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
    await expect(s.put('x'.repeat(1000))).resolves.toMatchObject({ added: true });
  });

  it('has a default size limit of 512 KiB', async () => {
    const s = await redis.scheduler();
    await refused(() => s.put('x'.repeat(512 * 1024)), 'data', PayloadTooLargeError);
  });

  it('refuses a putMany whose one bad item is deep in the list, and writes none of it', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const items = Array.from({ length: 10 }, (_, i) => ({ data: { i } as never, options: {} as never }));
    items[7] = { data: { i: 7 } as never, options: { delay: -5 } as never };
    await refused(() => s.putMany(items), 'items[7].options.delay');
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});

describe('bad input elsewhere', () => {
  it('refuses bad scheduler options before connecting', async () => {
    await refused(() => createScheduler({ url: testUrl(), prefix: 'a{b' }), 'options.prefix');
    await refused(() => createScheduler({ url: testUrl(), quue: 'x' } as never), 'options.quue');
    await refused(() => createScheduler({ url: testUrl(), maxPayloadBytes: 0 }), 'options.maxPayloadBytes');
    await refused(() => createScheduler({ url: 'http://127.0.0.1:6379' }), 'options.url');
    await refused(() => createScheduler({ cluster: [] }), 'options.cluster');
    await refused(() => createScheduler({ cluster: ['redis://127.0.0.1:7000', 'tcp://x'] }), 'options.cluster[1]');
    await refused(() => createScheduler({ url: testUrl(), cluster: ['redis://127.0.0.1:7000'] }), 'options.cluster');
  });

  it('names the first of several misspelled options', async () => {
    const s = await redis.scheduler();
    await refused(() => s.put('x', { dealy: 5, prio: true } as never), 'options.dealy');
  });

  it('says what range a count must be in', async () => {
    const s = await redis.scheduler();
    await expect(s.put('x', { maxAttempts: 0 })).rejects.toThrow('options.maxAttempts: must be from 1 to 1000');
    await expect(s.claimMany(5000)).rejects.toThrow('count: must be from 1 to 1000');
  });

  it('refuses bad arguments to reschedule, cancel, get, claim and work', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await refused(() => s.reschedule('abc', 'tomorrow' as never), 'at');
    await refused(() => s.reschedule(42 as never, Date.now()), 'hash');
    await refused(() => s.cancel('abc', { queue: 'x y' }), 'options.queue');
    await refused(() => s.get('abc', { qeue: 'x' } as never), 'options.qeue');
    await refused(() => s.claim({ lease: 0 }), 'options.lease');
    await refused(() => s.claimMany(0), 'count');
    await refused(() => s.claimMany(2.5), 'count');
    await refused(() => s.stats({ queue: '*' }), 'options.queue');
    await refused(() => s.work(async () => {}, { concurrency: 0 }), 'options.concurrency');
    await refused(() => s.work(async () => {}, { lease: -1 }), 'options.lease');
    await refused(() => s.work('nope' as never), 'handler');
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });

  it('refuses ack, fail and extend of something that is not a claimed task', async () => {
    const s = await redis.scheduler();
    await refused(() => s.ack({} as never), 'task');
    await refused(() => s.fail({ hash: 'a', token: 'b', queue: '{x}' } as never), 'task.queue');
    const task = { hash: 'a', token: 'b', queue: 'default' } as never;
    await refused(() => s.extend(task, 0), 'by');
    await refused(() => s.fail(task, { retryIn: -1 }), 'options.retryIn');
  });

  it('rejects every call after close() with a ClosedError', async () => {
    const s = await redis.scheduler();
    await s.close();
    await expect(s.put('x')).rejects.toBeInstanceOf(ClosedError);
    await expect(s.claim()).rejects.toMatchObject({ code: 'ERR_CLOSED', name: 'ClosedError' });
    expect(() => s.work(async () => {})).toThrow(ClosedError);
    await expect(s.close()).resolves.toBeUndefined();
  });

  it('uses its own prefix', () => {
    expect(uniquePrefix()).not.toBe(uniquePrefix());
  });
});
