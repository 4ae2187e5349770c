/**
 * Hostile input (the hardening issue): values nested past any stack, object graphs that explode
 * when written out, times past what a Date can hold, spans past what a timer can count, values
 * whose getters throw. Each is refused with a typed error before any I/O, or handled, and never
 * reaches a stack overflow, a hang or a script error.
 */
import type { RedisClientType } from 'redis';
import { createScheduler, PayloadTooLargeError, ValidationError, type Json, type Scheduler } from '../lib';
import { MAX_DEPTH } from '../lib/domain/payload';
import { MAX_INSTANT_MS, MAX_SPAN_MS } from '../lib/domain/options';
import { keysUnder, testUrl, useRedis } from './support/harness';
import { runLua } from './support/lua';

const redis = useRedis();

/** `levels` arrays or objects, one inside the other. */
function nested(levels: number, as: 'array' | 'object' = 'object'): Json {
  let value: Json = 'core';
  for (let i = 0; i < levels; i++) value = as === 'array' ? [value] : { next: value };
  return value;
}

/** A value with one child shared at every level: 2^levels leaves once written out. */
function shared(levels: number): Json {
  let value: Json = 'x';
  for (let i = 0; i < levels; i++) value = [value, value];
  return value;
}

/** The error `call` rejects (or throws) with; fails the test when it settles. */
async function errorOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to be refused');
}

/** Checks that `call` is refused with `type` naming `field`, and writes nothing under the prefix. */
async function refusedUnchanged(s: Scheduler & { prefix: string }, raw: RedisClientType, call: () => unknown, field: string, type: new (...args: never[]) => Error = ValidationError) {
  const before = await keysUnder(raw, s.prefix);
  const err = await errorOf(call);
  expect(err).toBeInstanceOf(type);
  expect((err as ValidationError).field).toBe(field);
  expect(await keysUnder(raw, s.prefix)).toEqual(before);
  return err as ValidationError;
}

describe('nesting depth', () => {
  it(`accepts a payload ${MAX_DEPTH} levels deep, and refuses one a level deeper, naming the limit`, async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put(nested(MAX_DEPTH));
    expect((await s.get(hash))!.data).toEqual(nested(MAX_DEPTH));
    const err = await refusedUnchanged(s, raw, () => s.put(nested(MAX_DEPTH + 1, 'array')), `data${'[0]'.repeat(MAX_DEPTH)}`);
    expect(err.message).toContain(`deeper than the limit of ${MAX_DEPTH} levels`);
  });

  it.each(['object', 'array'] as const)('refuses a payload of %ss nested 3,000 levels with a ValidationError, not a RangeError', async (as) => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await refusedUnchanged(s, raw, () => s.put(nested(3000, as)), `data${(as === 'array' ? '[0]' : '.next').repeat(MAX_DEPTH)}`);
    // Far past any stack: the walk stops at the limit, it never goes that deep.
    await refusedUnchanged(s, raw, () => s.put(nested(1_000_000, as)), `data${(as === 'array' ? '[0]' : '.next').repeat(MAX_DEPTH)}`);
  });

  it('refuses deep values wherever JSON comes in: putMany, results, progress, every() and sharded puts', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const deep = nested(3000);
    const at = `${'.next'.repeat(MAX_DEPTH)}`;
    await refusedUnchanged(s, raw, () => s.putMany([{ data: 1 }, { data: deep }]), `items[1].data${at}`);
    await refusedUnchanged(s, raw, () => s.every('deep', 60_000, deep), `data${at}`);
    await refusedUnchanged(s, raw, () => s.sharded('sh', 2).put(deep), `data${at}`);
    await s.put('work', { keepResult: 60_000 });
    const task = (await s.claim())!;
    await refusedUnchanged(s, raw, () => s.progress(task, deep), `progress${at}`);
    await refusedUnchanged(s, raw, () => s.ack(task, deep), `result${at}`);
    expect(await s.ack(task, nested(MAX_DEPTH))).toBe(true);
  });

  it('keeps the lua cjson limit out of reach: a stored value at the limit is well under its 1,000 levels', async () => {
    const raw = await redis.raw();
    const json = JSON.stringify(nested(MAX_DEPTH, 'array'));
    const decode = `local ok = pcall(cjson.decode, ARGV[1]) return ok and 1 or 0`;
    expect(await runLua(raw, decode, [], [json])).toBe(1);
    // The limit this stays under: cjson refuses past 1,000 levels.
    expect(await runLua(raw, decode, [], [JSON.stringify(nested(1001, 'array'))])).toBe(0);
  });
});

describe('values that explode when written out', () => {
  it('refuses one child shared at every level as too large, at once, instead of writing 2^40 leaves', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    // "At once": writing 2^40 leaves out would never end, so this test's own timeout (not a timed
    // assertion, which a busy shared machine would break) is what fails without the early stop.
    const err = await refusedUnchanged(s, raw, () => s.put(shared(40)), 'data', PayloadTooLargeError);
    expect(err.message).toMatch(/^data: payload is more than \d+ bytes, over the limit of 524288 bytes$/);
    await refusedUnchanged(s, raw, () => s.every('bomb', 60_000, shared(40)), 'data', PayloadTooLargeError);
  }, 20_000);

  it('refuses such a result as too large, and records such a failure as bounded text', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('explode', { keepResult: 60_000 });
    const task = (await s.claim())!;
    expect(await errorOf(() => s.ack(task, shared(40)))).toBeInstanceOf(PayloadTooLargeError);
    // String() of it would join 2^40 strings: fail() records it as bounded JSON, or its type.
    expect(await s.fail(task, { error: shared(40), retryIn: 60_000 })).toBe('retry');
    expect((await s.get(hash))!.lastError).toBe('[object Array]');
    await s.put('explode too');
    const again = (await s.claim())!;
    expect(await s.fail(again, { error: ['a', ['b']], retryIn: 60_000 })).toBe('retry');
    expect((await s.get(again.hash))!.lastError).toBe('["a",["b"]]');
  });
});

describe('times and spans out of range', () => {
  it('refuses a run-at past the end of the year 4999 (8.64e15 + 1 included), and leaves the task as it was', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash, runAt } = await s.put('timely', { delay: 60_000 });
    for (const at of [8.64e15 + 1, 8.64e15, MAX_INSTANT_MS + 1, Number.MAX_VALUE, Infinity, NaN, -1, new Date(NaN)]) {
      const before = await keysUnder(raw, s.prefix);
      expect(await errorOf(() => s.reschedule(hash, at))).toMatchObject({ name: 'ValidationError', field: 'at' });
      expect(await keysUnder(raw, s.prefix)).toEqual(before);
    }
    expect((await s.get(hash))!.runAt).toBe(runAt);
    expect(await s.reschedule(hash, MAX_INSTANT_MS)).toBe(true);
    expect((await s.get(hash))!.runAt).toBe(MAX_INSTANT_MS);
  });

  it('keeps the latest run-at and the longest expire after it to the millisecond (Lua writes 14 digits)', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('last', { at: MAX_INSTANT_MS, expire: MAX_SPAN_MS });
    expect(await s.get(hash)).toMatchObject({ runAt: MAX_INSTANT_MS, expireAt: MAX_INSTANT_MS + MAX_SPAN_MS });
    expect(MAX_INSTANT_MS + MAX_SPAN_MS).toBeLessThan(1e14);
  });

  it('refuses spans past 100 years, and a Duration that adds up to more, or to Infinity', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await refusedUnchanged(s, raw, () => s.put(1, { delay: MAX_SPAN_MS + 1 }), 'options.delay');
    await refusedUnchanged(s, raw, () => s.put(1, { delay: { years: 1e300 } }), 'options.delay');
    await refusedUnchanged(s, raw, () => s.put(1, { expire: { years: 101 } }), 'options.expire');
    await refusedUnchanged(s, raw, () => s.put(1, { delay: { minutes: -1 } }), 'options.delay.minutes');
    await refusedUnchanged(s, raw, () => s.clean({ state: 'dead', olderThan: Infinity }), 'options.olderThan');
    await refusedUnchanged(s, raw, () => s.backoffQueue('default', { years: 101 }), 'span');
  });

  it('refuses a span this process would count with a timer past what one can (about 24.8 days)', async () => {
    // setTimeout fires after 1 ms beyond 2^31 - 1: a commandTimeout of a year timed every call out.
    const err = await errorOf(() => createScheduler({ url: testUrl(), commandTimeout: { years: 1 } }));
    expect(err).toMatchObject({ name: 'ValidationError', field: 'options.commandTimeout' });
    const s = await redis.scheduler();
    // A work() lease is renewed every third of it: one of a year renewed it every millisecond.
    expect(() => s.work(async () => {}, { lease: { years: 1 } })).toThrow(expect.objectContaining({ field: 'options.lease' }));
    expect(() => s.work(async () => {}, { shutdownTimeout: 2 ** 31 })).toThrow(expect.objectContaining({ field: 'options.shutdownTimeout' }));
    const worker = s.work(async () => {}, { lease: 2 ** 31 - 1 });
    expect(await errorOf(() => worker.close({ timeout: 2 ** 31 }))).toMatchObject({ field: 'options.timeout' });
    await worker.close();
    // claim() arms no timer for its lease: it may be as long as any span.
    await s.put('held long');
    expect(await s.claim({ lease: { years: 100 } })).not.toBeNull();
  });

  it('refuses a throughput bucket past 24 hours (it made stream ids Redis refused)', async () => {
    const s = await redis.scheduler();
    expect(await errorOf(() => s.throughput({ bucket: 8.64e15 + 1 }))).toMatchObject({ field: 'options.bucket' });
  });
});

describe('arguments that throw when read, or are missing', () => {
  it('refuses options and data whose getters throw, naming them, and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const throwing = {
      get queue(): string {
        throw new TypeError('boom');
      },
    };
    const err = await refusedUnchanged(s, raw, () => s.put(1, throwing as never), 'options');
    expect(err.message).toContain('could not be read: reading it threw TypeError: boom');
    expect(err.cause).toBeInstanceOf(TypeError);
    await refusedUnchanged(s, raw, () => s.put({ a: throwing } as never), 'data');
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    await refusedUnchanged(s, raw, () => s.put(trap as never), 'data');
    await refusedUnchanged(s, raw, () => s.stats(trap as never), 'options');
  });

  it('refuses claimMany without a count (claim.lua failed on it under a concurrency limit)', async () => {
    const s = await redis.scheduler();
    await s.limitConcurrency(2);
    await s.put('one');
    expect(await errorOf(() => s.claimMany(undefined as never))).toMatchObject({ name: 'ValidationError', field: 'count' });
  });

  it('refuses a sharded put whose key is not a string before building an identity of it', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const shards = s.sharded('sh', 2);
    await refusedUnchanged(s, raw, () => shards.put(1, { key: Object.create(null) }), 'options.key');
    await refusedUnchanged(s, raw, () => shards.putMany([{ data: 1, options: { key: Symbol('k') as never } }]), 'items[0].options.key');
    expect(() => shards.shardOf(1, 5 as never)).toThrow(expect.objectContaining({ field: 'key' }));
  });

  it('refuses registerMetrics options that are not an object', async () => {
    const s = await redis.scheduler();
    const registry = { registerMetric: () => {} };
    expect(() => s.registerMetrics(registry, null as never)).toThrow(expect.objectContaining({ field: 'options' }));
    expect(() => s.registerMetrics(registry, { prefix: Symbol('p') as never })).toThrow(expect.objectContaining({ field: 'options.prefix' }));
  });
});
