/**
 * Payloads encrypted at rest (options.encryption): payloads, results, progress and log lines are
 * stored sealed, the identity hash is keyed, equal payloads still de-duplicate, values sealed with
 * an older key still open (rotation), and a scheduler without the key shows "encrypted" and never
 * fails on it, while a handler given a task it cannot decrypt fails with a DecryptionError.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { RedisClientType } from 'redis';
import { createScheduler, DecryptionError, ValidationError } from '../lib';
import { createHash128, identityOf } from '../lib/domain/hashing';
import { canonicalJson } from '../lib/domain/payload';
import { main, type Io } from '../lib/surfaces/cli/main';
import { eventually, keysUnder, testUrl, uniquePrefix, useRedis } from './support/harness';

const redis = useRedis();

const keyA = { id: 'a', key: randomBytes(32) };
const keyB = { id: 'b', key: randomBytes(32).toString('base64') };

/** Every key under `prefix` with everything it holds (names, members, fields, values), as text. */
async function dump(raw: RedisClientType, prefix: string): Promise<string> {
  const parts: string[] = [];
  for (const key of await keysUnder(raw, prefix)) {
    parts.push(key);
    const type = await raw.type(key);
    if (type === 'string') parts.push((await raw.get(key)) ?? '');
    else if (type === 'hash') parts.push(JSON.stringify(await raw.hGetAll(key)));
    else if (type === 'list') parts.push(JSON.stringify(await raw.lRange(key, 0, -1)));
    else if (type === 'set') parts.push(JSON.stringify(await raw.sMembers(key)));
    else if (type === 'zset') parts.push(JSON.stringify(await raw.zRange(key, 0, -1)));
    else if (type === 'stream') parts.push(JSON.stringify(await raw.xRange(key, '-', '+')));
  }
  return parts.join('\n');
}

describe('payloads encrypted at rest', () => {
  it('stores no payload, result, progress, log line or plain identity hash in Redis', async () => {
    const s = await redis.scheduler({ encryption: { keys: [keyA] } });
    const raw = await redis.raw();
    const data = { secret: 'PAYLOAD-SECRET-1' };
    const plainHash = (await createHash128())(identityOf(canonicalJson(data), undefined));
    const { hash } = await s.put(data, { keepResult: 60_000 });
    expect(hash).not.toBe(plainHash);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: unknown[] = [];
    const w = s.work(async (task) => {
      seen.push(task.data);
      await task.progress({ step: 'PROGRESS-SECRET' });
      await task.log('LOG-SECRET');
      await gate;
      return { answer: 'RESULT-SECRET' };
    });
    await eventually(async () => (await s.logs(hash)).length === 1 && (await s.get(hash))?.progress !== null);
    // While it runs: its payload, progress and log are in Redis, sealed; this scheduler opens them.
    const running = await dump(raw, s.prefix);
    expect(await s.get(hash)).toMatchObject({ data, progress: { step: 'PROGRESS-SECRET' } });
    expect((await s.logs(hash)).map((l) => l.line)).toEqual(['LOG-SECRET']);
    release();
    await eventually(async () => (await s.result(hash))?.state === 'done');
    await w.close();
    expect(seen).toEqual([data]);
    expect(await s.result(hash)).toMatchObject({ state: 'done', result: { answer: 'RESULT-SECRET' } });
    const done = await dump(raw, s.prefix);
    for (const text of [running, done]) {
      expect(text).toContain('enc:v1:a:');
      for (const plain of ['PAYLOAD-SECRET', 'PROGRESS-SECRET', 'LOG-SECRET', 'RESULT-SECRET', plainHash]) expect(text).not.toContain(plain);
    }
  });

  it('still de-duplicates equal payloads, keyed by the first key', async () => {
    const s = await redis.scheduler({ encryption: { keys: [keyA] } });
    const first = await s.put({ n: 1, m: [1, 2] });
    expect(await s.put({ m: [1, 2], n: 1 })).toMatchObject({ hash: first.hash, added: false, status: 'duplicate' });
    expect(await s.put({ n: 2, m: [1, 2] })).toMatchObject({ added: true });
    expect(await s.put('keyed', { key: 'k1' })).toMatchObject({ added: true });
    expect(await s.put('other data', { key: 'k1' })).toMatchObject({ added: false });
    // The de-dup modes work on sealed payloads too: replace, and until-start's second copy.
    const r = await s.put({ v: 1 }, { key: 'r', onDuplicate: 'replace' });
    expect(await s.put({ v: 2 }, { key: 'r', onDuplicate: 'replace' })).toMatchObject({ hash: r.hash, status: 'replaced' });
    expect((await s.get(r.hash))?.data).toEqual({ v: 2 });
    const u = await s.put('until start', { unique: 'until-start', queue: 'u' });
    expect((await s.claim({ queue: 'u' }))?.data).toBe('until start');
    const again = await s.put('until start', { unique: 'until-start', queue: 'u' });
    expect(again).toMatchObject({ added: true });
    expect(again.hash).not.toBe(u.hash);
    expect(await s.put('until start', { unique: 'until-start', queue: 'u' })).toMatchObject({ hash: again.hash, added: false });
  });

  it('seals equal payloads to unrelated text, with unrelated ids, in every queue and prefix that share a key', async () => {
    const raw = await redis.raw();
    const s = await redis.scheduler({ encryption: { keys: [keyA] } });
    const t = await redis.scheduler({ encryption: { keys: [keyA] } });
    const data = { tenant: 'same payload everywhere' };
    /** What Redis holds as task `hash`'s payload (its field in `tasks`, after the record's newline). */
    const stored = async (prefix: string, queue: string, hash: string) => {
      const field = (await raw.hGet(`${prefix}:{${queue}}:tasks`, hash))!;
      return field.slice(field.indexOf('\n') + 1);
    };
    const puts = [
      { prefix: s.prefix, queue: 'q1', put: await s.put(data, { queue: 'q1' }) },
      { prefix: s.prefix, queue: 'q2', put: await s.put(data, { queue: 'q2' }) },
      { prefix: t.prefix, queue: 'q1', put: await t.put(data, { queue: 'q1' }) },
      // Two writes of the same data in one queue (two de-dup keys): each with a nonce of its own.
      { prefix: s.prefix, queue: 'q3', put: await s.put(data, { queue: 'q3', key: 'k1' }) },
      { prefix: s.prefix, queue: 'q3', put: await s.put(data, { queue: 'q3', key: 'k2' }) },
    ];
    const ids = puts.map((p) => p.put.hash);
    expect(new Set(ids).size).toBe(ids.length);
    const texts = await Promise.all(puts.map((p) => stored(p.prefix, p.queue, p.put.hash)));
    for (const text of texts) expect(text).toMatch(/^enc:v2:a:[0-9a-f]{32}:/);
    // No two share their sealed body (nonce, tag, ciphertext), nor, across queues and prefixes, their MAC.
    const bodies = texts.map((text) => text.slice(text.lastIndexOf(':') + 1));
    expect(new Set(bodies).size).toBe(bodies.length);
    const macs = texts.slice(0, 3).map((text) => text.split(':')[3]);
    expect(new Set(macs).size).toBe(3);
    // Within one queue, the same data is still the same task, and each reads back.
    expect(await s.put({ tenant: 'same payload everywhere' }, { queue: 'q1' })).toMatchObject({ hash: ids[0], added: false, status: 'duplicate' });
    expect(await t.put(data, { queue: 'q1' })).toMatchObject({ hash: ids[2], added: false });
    for (const p of puts) expect((await (p.prefix === s.prefix ? s : t).get(p.put.hash, { queue: p.queue }))?.data).toEqual(data);
    // Ids that collide (a hash that gives one id to all) still tell the sealed payloads apart by their MAC.
    const weak = await redis.scheduler({ encryption: { keys: [keyA] }, hash: () => 'same-id' });
    const one = await weak.put({ n: 1 });
    const two = await weak.put({ n: 2 });
    expect([one.hash, two.hash]).toEqual(['same-id', 'same-id-1']);
    expect(await weak.put({ n: 2 })).toMatchObject({ hash: 'same-id-1', added: false });
    expect(await weak.put({ n: 1 })).toMatchObject({ hash: 'same-id', added: false });
  });

  it('still opens payloads sealed in the first format (enc:v1, before payloads took a fresh nonce)', async () => {
    const raw = await redis.raw();
    const s = await redis.scheduler({ encryption: { keys: [{ id: 'old', key: Buffer.alloc(32, 7) }] } });
    // Sealed by docket at f9a28f0 with this key (Keyring.seal(text, true)): what Redis holds of a
    // task put before the upgrade.
    const v1 = 'enc:v1:old:PYYZQg1FbBGpoMeRwxw9cQ+xlAYdNN8G9XPE6cIxqjZ24Z64EQPmXgEA2M2l3r9Ofa45+A==';
    const { hash } = await s.put({ v: 'sealed before v2' });
    const key = `${s.prefix}:{default}:tasks`;
    const field = (await raw.hGet(key, hash))!;
    await raw.hSet(key, hash, `${field.slice(0, field.indexOf('\n') + 1)}${v1}`);
    expect((await s.get(hash))?.data).toEqual({ v: 'sealed before v2' });
    expect((await s.claim())?.data).toEqual({ v: 'sealed before v2' });
  });

  it('reads values sealed with any listed key, and seals with the first (rotation)', async () => {
    const prefix = uniquePrefix();
    const old = await redis.scheduler({ prefix, encryption: { keys: [keyA] } });
    const before = await old.put({ v: 'before rotation' });
    const rotated = await redis.scheduler({ prefix, encryption: { keys: [keyB, keyA] } });
    const after = await rotated.put({ v: 'after rotation' });
    expect((await rotated.get(before.hash))?.data).toEqual({ v: 'before rotation' });
    expect((await rotated.get(after.hash))?.data).toEqual({ v: 'after rotation' });
    const raw = await redis.raw();
    expect(await dump(raw, prefix)).toContain('enc:v2:b:');
    // A handler of the rotated scheduler gets both.
    const batch = await rotated.claimMany(2);
    expect(batch.map((t) => t.data)).toEqual(expect.arrayContaining([{ v: 'before rotation' }, { v: 'after rotation' }]));
    // The old scheduler has not got key b: "encrypted", not a throw.
    expect(await old.get(after.hash)).toMatchObject({ data: null, encrypted: true });
    expect((await old.get(before.hash))?.encrypted).toBeUndefined();
  });

  it('shows "encrypted" to a scheduler without the key, and never fails on it', async () => {
    const prefix = uniquePrefix();
    const s = await redis.scheduler({ prefix, encryption: { keys: [keyA] } });
    const { hash } = await s.put({ secret: 1 }, { keepResult: 60_000 });
    const w = s.work(async (task) => {
      await task.log('a line');
      await task.progress(50);
      return 'a result';
    });
    await eventually(async () => (await s.result(hash))?.state === 'done');
    await w.close();
    const pending = await s.put({ secret: 2 });
    const plain = await redis.scheduler({ prefix });
    expect(await plain.get(pending.hash)).toMatchObject({ data: null, encrypted: true });
    const page = await plain.list('ready');
    expect(page.tasks).toEqual([expect.objectContaining({ hash: pending.hash, data: null, encrypted: true })]);
    const previews = await plain.list('ready', { preview: 100 });
    expect(previews.tasks).toEqual([expect.objectContaining({ hash: pending.hash, preview: 'encrypted', encrypted: true })]);
    expect(await plain.result(hash)).toMatchObject({ state: 'done', result: null, encrypted: true });
    // The plain scheduler's claim takes the task; only reading its data throws, a typed error.
    const [task] = await plain.claimMany(1);
    expect(() => task.data).toThrow(DecryptionError);
    expect(() => task.data).toThrow(/no options.encryption keys/);
  });

  it('fails a task whose payload no listed key opens with a DecryptionError', async () => {
    const prefix = uniquePrefix();
    const s = await redis.scheduler({ prefix, encryption: { keys: [keyA] } });
    const { hash } = await s.put('x', { maxAttempts: 1 });
    // Same id, another key: the tag fails.
    const wrong = await redis.scheduler({ prefix, encryption: { keys: [{ id: 'a', key: randomBytes(32) }] } });
    const errors: unknown[] = [];
    const w = wrong.work(async (task) => task.data, { onError: (err: unknown) => errors.push(err) });
    await eventually(async () => (await s.get(hash))?.state === 'dead');
    await w.close();
    expect((await s.get(hash))?.lastError).toMatch(/DecryptionError.*authentication tag/);
    const unknownId = await redis.scheduler({ prefix, encryption: { keys: [keyB] } });
    const { hash: other } = await s.put('y');
    const [task] = await unknownId.claimMany(1);
    expect(task.hash).toBe(other);
    expect(() => task.data).toThrow(expect.objectContaining({ code: 'ERR_DECRYPTION', what: `the payload of task ${other}` }));
  });

  it('shows "encrypted" for log lines, events and docket inspect without the key', async () => {
    const prefix = uniquePrefix();
    const s = await redis.scheduler({ prefix, encryption: { keys: [keyA] } });
    const plain = await redis.scheduler({ prefix });
    const events = plain.events({ from: 'start' });
    const { hash } = await s.put({ secret: 3 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const w = s.work(async (task) => {
      await task.log('LOG-SECRET');
      await task.progress('PROGRESS-SECRET');
      await gate;
    });
    await eventually(async () => (await s.logs(hash)).length === 1);
    expect(await plain.logs(hash)).toEqual([{ at: expect.any(Number), line: 'encrypted', encrypted: true }]);
    await eventually(async () => (await plain.get(hash))?.state === 'active');
    expect(await plain.get(hash)).toMatchObject({ data: null, progress: null, encrypted: true });
    expect(await plain.result(hash)).toMatchObject({ state: 'active', progress: null, encrypted: true });
    let progress: unknown;
    for await (const e of events) {
      if (e.type !== 'progress') continue;
      progress = e;
      break;
    }
    expect(progress).toMatchObject({ type: 'progress', hash, progress: null, encrypted: true });
    const out = { stdout: '' };
    const io: Io = { stdout: { write: (t: string) => ((out.stdout += t), true) }, stderr: { write: () => true }, env: {} };
    expect(await main(['inspect', 'default', hash, '--url', testUrl(), '--prefix', prefix], io)).toBe(0);
    expect(out.stdout).toMatch(/data\s+encrypted/);
    expect(out.stdout).not.toContain('SECRET');
    release();
    await w.close();
  });

  it('gives a sandboxed handler its data decrypted, and seals what it reports', async () => {
    const s = await redis.scheduler({ encryption: { keys: [keyA] } });
    const raw = await redis.raw();
    const { hash } = await s.put({ n: 'SANDBOX-SECRET' }, { name: 'echo', keepResult: 60_000 });
    const w = s.work(path.join(__dirname, 'support', 'sandbox', 'handlers.js'), { sandbox: true });
    const outcome = await s.result(hash, { wait: 15_000 });
    await w.close();
    expect(outcome).toMatchObject({ state: 'done', result: { data: { n: 'SANDBOX-SECRET' }, name: 'echo' } });
    expect(await dump(raw, s.prefix)).not.toContain('SANDBOX-SECRET');
    // A sandboxed worker without the key fails the attempt on the main thread, holding no thread.
    const plain = await redis.scheduler({ prefix: s.prefix });
    const failed = await s.put({ n: 'other' }, { name: 'echo', maxAttempts: 1 });
    const pw = plain.work(path.join(__dirname, 'support', 'sandbox', 'handlers.js'), { sandbox: true, onError: () => {} });
    await eventually(async () => (await s.get(failed.hash))?.state === 'dead', 10_000);
    await pw.close();
    expect((await s.get(failed.hash))?.lastError).toMatch(/DecryptionError/);
  });

  it('stores the data of a schedule sealed, and its occurrences carry it decrypted', async () => {
    const s = await redis.scheduler({ encryption: { keys: [keyA] } });
    const raw = await redis.raw();
    await s.schedule('sealed-nightly', { minutes: 5 }, { secret: 'schedule-plaintext-7301' });
    await s.every('sealed-every', { minutes: 5 }, { secret: 'every-plaintext-7302' });
    const stored = await dump(raw, s.prefix);
    expect(stored).not.toContain('schedule-plaintext-7301');
    expect(stored).not.toContain('every-plaintext-7302');
    const byName = new Map((await s.listSchedules()).map((info) => [info.name, info.data]));
    expect(byName.get('sealed-nightly')).toEqual({ secret: 'schedule-plaintext-7301' });
    expect(byName.get('sealed-every')).toEqual({ secret: 'every-plaintext-7302' });
    const now = await s.runScheduleNow('sealed-nightly');
    expect((await s.get(now!.hash))!.data).toEqual({ secret: 'schedule-plaintext-7301' });
    // Pausing finds the occurrence put ahead by its id (bound to its queue, as put bound it) and cancels it.
    expect((await s.stats()).delayed).toBe(2);
    expect(await s.pauseSchedule('sealed-nightly')).toBe(true);
    expect((await s.stats()).delayed).toBe(1);
    // Without the key: listed, data null, no throw.
    const blind = await redis.scheduler({ prefix: s.prefix });
    expect((await blind.listSchedules()).map((info) => info.data)).toEqual([null, null]);
  });

  it('refuses bad keys, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ keys: [] }, 'options.encryption.keys'],
      [{ keys: [{ id: 'a', key: randomBytes(16) }] }, 'options.encryption.keys[0].key'],
      [{ keys: [{ id: 'a', key: 'not base64!' }] }, 'options.encryption.keys[0].key'],
      [{ keys: [{ id: '', key: randomBytes(32) }] }, 'options.encryption.keys[0].id'],
      [{ keys: [keyA, { id: 'a', key: randomBytes(32) }] }, 'options.encryption.keys[1].id'],
      [{ keys: [keyA], extra: 1 }, 'options.encryption.extra'],
    ];
    for (const [encryption, field] of cases) {
      const err = await createScheduler({ url: testUrl(), prefix: uniquePrefix(), encryption: encryption as never }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe(field);
    }
  });
});
