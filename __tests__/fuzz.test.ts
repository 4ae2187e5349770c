/**
 * Property-based fuzz of the public API: seeded random arguments (mostly invalid, sometimes valid:
 * hostile JSON-like values, options, names, spans and times) go to every Scheduler method. Each
 * call must resolve, or reject with a DocketError that has a `name` and a `code` and refuses the
 * call (REFUSALS); nothing else. A call that rejected must have written nothing: the keys under
 * the fuzz's prefix, and every value in them, are the same after it as before.
 *
 * The generator is a small one of our own (no new dependency): a seeded PRNG picking from lists
 * of edge cases. DOCKET_FUZZ_SEED and DOCKET_FUZZ_CASES override the seed and the number of calls;
 * a failure names the seed and the call, so `DOCKET_FUZZ_SEED=<seed> npx jest fuzz` replays it
 * (DOCKET_FUZZ_TRACE=1 shows each call before it runs, for one that never returns).
 */
import type { RedisClientType } from 'redis';
import { DocketError, type Scheduler, type Task } from '../lib';
import { MAX_INSTANT_MS } from '../lib/domain/options';
import { testUrl, useRedis } from './support/harness';
import { runLua } from './support/lua';

const SEED = Number(process.env.DOCKET_FUZZ_SEED ?? 20_240_611);
const CASES = Number(process.env.DOCKET_FUZZ_CASES ?? 6000);
/** Calls on a closed scheduler, after the main run. */
const CLOSED_CASES = 200;
/**
 * The DocketErrors that refuse a call. Against a healthy local server any other (a RedisError
 * from a script that failed, a TimeoutError) is a bug, though a DocketError: the fuzz fails on it.
 */
const REFUSALS = new Set(['ERR_VALIDATION', 'ERR_PAYLOAD_TOO_LARGE', 'ERR_QUEUE_ACTIVE', 'ERR_CLOSED']);
/** Writes each call to stderr before it runs: the way to find one that blocks the event loop. */
const TRACE = process.env.DOCKET_FUZZ_TRACE === '1';
/** A call that takes longer than this is a failure too (a hang is not "a result"). */
const CALL_MS = 5000;

/**
 * Other test files share the redis-server, so DBSIZE of the whole server moves under us. The fuzz
 * runs in a database of its own, and compares the keys under its own prefix there (SCAN over a
 * small database, and a SHA-1 of each key's DUMP), which is DBSIZE's check and more.
 */
const FUZZ_DB = 13;

/** sfc32: small, fast, and the same sequence for a seed on every platform. */
class Rng {
  private s: [number, number, number, number];
  constructor(seed: number) {
    this.s = [0x9e3779b9, 0x243f6a88, 0xb7e15162, seed >>> 0];
    for (let i = 0; i < 15; i++) this.next();
  }
  next(): number {
    let [a, b, c, d] = this.s;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    this.s = [a, b, c, d];
    return (t >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }
}

const QUEUES = ['q1', 'q2', 'q3'];
const now = Date.now();
/** Values no argument should take, in every shape JavaScript has. */
const HOSTILE: Array<() => unknown> = [
  () => undefined,
  () => null,
  () => NaN,
  () => Infinity,
  () => -Infinity,
  () => -1,
  () => -0,
  () => 0.5,
  () => 2 ** 31,
  () => 2 ** 53,
  () => Number.MAX_VALUE,
  () => 8.64e15 + 1,
  () => 10n,
  () => Symbol('s'),
  () => () => 1,
  () => new Date(NaN),
  () => new Date(0),
  () => new Map([[1, 2]]),
  () => new Set([1]),
  () => /re/,
  () => new Uint8Array(2),
  () => new Error('e'),
  () => '',
  () => ' ',
  () => 'a|b',
  () => '{q}',
  () => 'q*',
  () => '\u0000',
  () => '\ud800',
  () => '__proto__',
  () => 'x'.repeat(3000),
  () => [],
  () => ({}),
  () => Object.create(null),
  () => ({
    toString: () => {
      throw new Error('toString');
    },
  }),
];
/**
 * Values that throw when read: a getter, a proxy trap. Given only where docket reads the value as
 * JSON (data, results, progress) or parses it as options; see the note at `plain`.
 */
const THROWING: Array<() => unknown> = [
  () => ({
    get queue(): never {
      throw new Error('getter');
    },
  }),
  () =>
    new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('ownKeys');
        },
        get: () => {
          throw new Error('get');
        },
      },
    ),
];

function hostile(r: Rng): unknown {
  return r.chance(0.05) ? r.pick(THROWING)() : r.pick(HOSTILE)();
}

/**
 * A hostile value that does not throw when read. Task objects, putMany's items, handlers, a
 * metrics registry, and the options of work, sharded, registerMetrics, events and throughput are
 * read before any parse, where a getter's own exception still reaches the caller as it is (as
 * JSON.stringify lets it through): not covered here.
 */
function plain(r: Rng): unknown {
  return r.pick(HOSTILE)();
}

/** Nested `levels` deep: arrays or objects. */
function nested(r: Rng, levels: number): unknown {
  let v: unknown = r.pick([1, 'x', null]);
  const asArray = r.chance(0.5);
  for (let i = 0; i < levels; i++) v = asArray ? [v] : { k: v };
  return v;
}

/** A JSON-like value: mostly valid JSON, with hostile leaves and shapes now and then. */
function json(r: Rng, depth = 0): unknown {
  const roll = r.int(100);
  if (roll < 8) return hostile(r);
  if (roll < 12) return nested(r, r.pick([50, 99, 100, 101, 150, 3000, 20_000]));
  if (roll < 14) {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = r.chance(0.5) ? cycle : [cycle];
    return cycle;
  }
  if (roll < 15) {
    // One child shared at every level: 2^40 leaves if written out.
    let bomb: unknown = 'x';
    for (let i = 0; i < 40; i++) bomb = [bomb, bomb];
    return bomb;
  }
  if (roll < 16) return [1, , 3]; // eslint-disable-line no-sparse-arrays
  if (roll < 17)
    return {
      get boom(): never {
        throw new Error('getter');
      },
    };
  if (roll < 50 || depth > 3) return r.pick([null, true, false, 0, -1.5, 1e21, 'text', '', 'é😀', 'a|b\u2028']);
  if (roll < 75) return Array.from({ length: r.int(4) }, () => json(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = r.int(4); i > 0; i--) o[r.pick(['a', 'b', '__proto__', 'constructor', '', 'k|k'])] = json(r, depth + 1);
  return o;
}

/** `valid()` most of the time, else a hostile value. */
function maybe(r: Rng, valid: () => unknown, p = 0.7, bad = hostile): unknown {
  return r.chance(p) ? valid() : bad(r);
}

const span = (r: Rng) =>
  r.pick([
    0,
    1,
    10,
    1000,
    60_000,
    1.5,
    0.4,
    -1,
    NaN,
    Infinity,
    2 ** 31 - 1,
    2 ** 31,
    3_155_760_000_000,
    3_155_760_000_001,
    1e300,
    { seconds: 1 },
    { minutes: 5 },
    { days: 30 },
    { days: 31 },
    { years: 100 },
    { years: 101 },
    { years: 1e300 },
    { minutes: -1 },
    { millis: 5 },
    {},
    '5s',
  ]);
const instant = (r: Rng) =>
  r.pick([now, now + 1000, now - 1000, 0, new Date(now), MAX_INSTANT_MS, MAX_INSTANT_MS + 1, 253_402_300_799_999, 8.64e15, 8.64e15 + 1, -1, NaN, Infinity, new Date(NaN), '2020-01-01', 1.5]);
const count = (r: Rng) => r.pick([1, 2, 10, 100, 1000, 1001, 0, -1, 1.5, NaN, 1e6, 2 ** 53, '3', null]);
const queue = (r: Rng) => (r.chance(0.8) ? r.pick(QUEUES) : r.pick(['', 'a b', '{x}', 'q*', 'x'.repeat(129), 'é', '\ud800', 'q:0']));
const name = (r: Rng) => r.pick(['n1', 'n2', 'job', '', 'a|b', 'x'.repeat(129), '\u0001', 'é', '\udfff', ' sp ']);
const group = (r: Rng) => r.pick(['g1', 'g2', '', 'a|b', 'a b', 'x'.repeat(129), '\u007f']);

/** An options object: some of its keys, valid or not, now and then a misspelt one; or no object. */
function options(r: Rng, fields: Record<string, (r: Rng) => unknown>, bad = hostile): unknown {
  if (r.chance(0.15)) return bad(r);
  if (r.chance(0.1)) return undefined;
  const o: Record<string, unknown> = {};
  for (const [key, gen] of Object.entries(fields)) if (r.chance(0.5)) o[key] = maybe(r, () => gen(r), 0.6, bad);
  if (r.chance(0.05)) o.qeue = 'q1';
  return o;
}

const putFields = {
  queue,
  priority: (r: Rng) => r.pick([true, false, 0, 5, 9, 10, -1, 1.5]),
  group,
  delay: span,
  at: instant,
  expire: span,
  key: (r: Rng) => r.pick(['k1', 'k2', '', 'x'.repeat(1025), 'k|k', '\ud800']),
  name,
  maxAttempts: count,
  keepResult: span,
  unique: (r: Rng) => r.pick(['until-done', 'until-start', 'never']),
  dedupWindow: span,
  onDuplicate: (r: Rng) => r.pick(['keep', 'replace', 'debounce', 'drop']),
  timeout: span,
  after: (r: Rng) => r.pick([[], ['nohash'], [{ queue: 'q2', hash: 'h' }], [{ queue: 'unknown-q', hash: 'h' }], ['a|b']]),
  onDependencyFailure: (r: Rng) => r.pick(['dead', 'run', 'cancel', 'explode']),
};
const queueOpt = { queue };

// One table holds every public method, each with its own signature and reply, called with random
// arguments: `any` is what lets the entries differ.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Call = { args: unknown[]; call: (...a: any[]) => unknown; then?: (v: any, args: any[]) => Promise<unknown> | void };

/** Each public method of `s`, and how to call it with random arguments from `r`. */
function methodsOf(s: Scheduler, r: Rng): Record<string, () => Call> {
  const hashes: string[] = ['0'.repeat(32), 'nohash'];
  const tasks: Task<unknown>[] = [];
  const hash = () => (r.chance(0.8) ? r.pick(hashes) : hostile(r));
  const task = () => (r.chance(0.6) && tasks.length > 0 ? r.pick(tasks) : r.chance(0.5) ? { hash: 'h', token: 't', queue: r.pick(QUEUES) } : plain(r));
  const fakeRegistry = { registerMetric: () => {} };

  /** Each method and how to call it; `then` undoes what a resolved call left running. */
  return {
    put: () => ({ args: [json(r), options(r, putFields)], call: s.put, then: (v) => void hashes.push(v.hash) }),
    putMany: () => ({
      args: [r.chance(0.9) ? Array.from({ length: r.int(4) }, () => maybe(r, () => ({ data: json(r), options: options(r, putFields) }), 0.9, plain)) : plain(r)],
      call: s.putMany,
    }),
    reschedule: () => ({ args: [hash(), maybe(r, () => instant(r)), options(r, queueOpt)], call: s.reschedule }),
    changePriority: () => ({ args: [hash(), r.pick([true, false, 0, 3, 9, 10, -1, 'hi']), options(r, queueOpt)], call: s.changePriority }),
    cancel: () => ({ args: [hash(), options(r, queueOpt)], call: s.cancel }),
    get: () => ({ args: [hash(), options(r, queueOpt)], call: s.get }),
    logs: () => ({ args: [hash(), options(r, queueOpt)], call: s.logs }),
    redrive: () => ({ args: [hash(), options(r, queueOpt)], call: s.redrive }),
    result: () => ({ args: [hash(), options(r, { queue, wait: (r) => r.pick([0, 1, 20, { seconds: 0.02 }, -1, NaN, 2 ** 31, { years: 1 }]) })], call: s.result }),
    dependencies: () => ({ args: [hash(), options(r, { queue, limit: count })], call: s.dependencies }),
    claim: () => ({ args: [options(r, { queue, lease: span })], call: s.claim, then: (t) => void (t && tasks.push(t)) }),
    claimMany: () => ({ args: [maybe(r, () => count(r)), options(r, { queue, lease: span })], call: s.claimMany, then: (ts) => void tasks.push(...ts) }),
    ack: () => ({ args: [task(), r.chance(0.2) ? undefined : json(r)], call: s.ack }),
    progress: () => ({ args: [task(), json(r)], call: s.progress }),
    log: () => ({ args: [task(), r.chance(0.8) ? r.pick(['line', '', 'x'.repeat(70_000), '\ud800']) : json(r)], call: s.log }),
    fail: () => ({ args: [task(), options(r, { error: json, retryIn: span, maxAttempts: count })], call: s.fail }),
    extend: () => ({ args: [task(), maybe(r, () => span(r))], call: s.extend }),
    snooze: () => ({ args: [task(), maybe(r, () => span(r))], call: s.snooze }),
    stats: () => ({ args: [options(r, queueOpt)], call: s.stats }),
    pause: () => ({ args: [r.chance(0.2) ? queue(r) : options(r, queueOpt)], call: s.pause }),
    resume: () => ({ args: [r.chance(0.2) ? queue(r) : options(r, queueOpt)], call: s.resume }),
    list: () => ({ args: [r.pick(['ready', 'delayed', 'active', 'dead', 'waiting', 'bogus', 5]), options(r, { queue, limit: count, offset: count, preview: count })], call: s.list }),
    queues: () => ({ args: [], call: s.queues }),
    time: () => ({ args: [], call: s.time }),
    // The leading-string form is deprecated but still taken; its options are read before any
    // parse, so they get no throwing values (see `plain`).
    throughput: () => ({ args: r.chance(0.2) ? [queue(r), options(r, { window: count, bucket: count })] : [options(r, { queue, window: count, bucket: count }, plain)], call: s.throughput }),
    listDead: () => ({ args: [options(r, { queue, limit: count, offset: count })], call: s.listDead }),
    redriveAll: () => ({ args: [options(r, queueOpt)], call: s.redriveAll }),
    purgeDead: () => ({ args: [options(r, queueOpt)], call: s.purgeDead }),
    clean: () => ({ args: [options(r, { queue, state: (r) => r.pick(['ready', 'delayed', 'dead', 'active']), olderThan: span, limit: count })], call: s.clean }),
    obliterate: () => ({ args: [options(r, { queue, force: (r) => r.chance(0.5) })], call: s.obliterate }),
    every: () => ({
      args: [
        name(r),
        r.pick(['* * * * *', '*/5 * * * * *', 'not cron', '0 0 31 2 *', { cron: '0 * * * *', tz: 'Mars/Base' }, 100, 99, { hours: 1 }, { years: 101 }]),
        json(r),
        options(r, { queue, priority: count, expire: span, maxAttempts: count, missed: (r) => r.pick(['skip', 'once', 'catch-up', 'all']), catchUpLimit: count, keepResult: span }),
      ],
      call: s.every,
      // Its loop would keep putting occurrences while later calls are checked.
      then: (_, [n, , , o]) => s.unschedule(n, { queue: o?.queue }),
    }),
    unschedule: () => ({ args: [name(r), options(r, queueOpt)], call: s.unschedule }),
    listSchedules: () => ({ args: [options(r, queueOpt)], call: s.listSchedules }),
    limitGroups: () => ({ args: [r.pick([null, 1, 5, 0, 100_001, 1.5]), options(r, { queue, group })], call: s.limitGroups }),
    groupLimits: () => ({ args: [options(r, queueOpt)], call: s.groupLimits }),
    limitConcurrency: () => ({ args: [r.pick([null, 1, 5, 0, 100_001, 1.5]), options(r, queueOpt)], call: s.limitConcurrency }),
    concurrencyLimit: () => ({ args: [options(r, queueOpt)], call: s.concurrencyLimit }),
    limitRate: () => ({
      args: r.chance(0.3) ? [null, options(r, { queue, group, eachGroup: (r) => r.chance(0.5) })] : [options(r, { max: count, per: span, queue, group, eachGroup: (r) => r.chance(0.5) })],
      call: s.limitRate,
    }),
    rateLimits: () => ({ args: [options(r, queueOpt)], call: s.rateLimits }),
    backoffQueue: () => ({ args: [maybe(r, () => queue(r)), maybe(r, () => span(r))], call: s.backoffQueue }),
    work: () => ({
      args: [
        maybe(r, () => async () => 'ok', 0.5, plain),
        options(r, { queue, concurrency: count, lease: span, shutdownTimeout: span, timeout: span, keepResult: span, sandbox: () => false }, plain),
      ],
      call: s.work,
      then: (w) => w.close({ timeout: 100 }),
    }),
    events: () => {
      const from = (r: Rng) => r.pick(['now', 'start', '1-0', '99999999999999999999-0', 'x']);
      return { args: r.chance(0.2) ? [queue(r), options(r, { from })] : [options(r, { queue, from }, plain)], call: s.events, then: (it) => it.return() };
    },
    sharded: () => {
      const shard = r.chance(0.8) ? 'sh' : plain(r);
      const n = r.pick([1, 2, 4, 0, 1.5, 1e6]);
      const [method, args] = r.pick([
        ['put', [json(r), options(r, { key: putFields.key, name }, plain)]],
        ['putMany', [[{ data: json(r) }]]],
        ['result', [hash()]],
        ['stats', []],
        ['shardOf', [json(r)]],
      ] as const);
      return {
        args: [shard, n, method, args],
        call: (a: string, b: number, m: string, rest: unknown[]) => (s.sharded(a, b) as unknown as Record<string, (...a: unknown[]) => unknown>)[m](...rest),
      };
    },
    registerMetrics: () => ({ args: [maybe(r, () => fakeRegistry, 0.5, plain), maybe(r, () => ({ prefix: r.pick(['docket_', '1bad', '']) }), 0.6, plain)], call: s.registerMetrics }),
  };
}

/**
 * Makes `cases` random calls on `s`, checking each; returns what they came to. The keys under
 * `prefix` are read before each call and again after each refused one.
 */
async function fuzz(s: Scheduler, raw: RedisClientType, prefix: string, r: Rng, cases: number): Promise<{ resolved: number; refused: Map<string, number> }> {
  const methods = methodsOf(s, r);
  const names = Object.keys(methods);
  let resolved = 0;
  const refused = new Map<string, number>();
  for (let i = 0; i < cases; i++) {
    const method = r.pick(names);
    const { args, call, then } = methods[method]();
    const where = () => `seed ${SEED}, call #${i}: ${method}(${args.map(show).join(', ')})`;
    // A call that blocks the event loop outruns every timer: this shows which one it was.
    if (TRACE) process.stderr.write(`${where()}\n`);
    const before = await snapshot(raw, prefix);
    let value: unknown;
    try {
      value = await deadline(
        Promise.resolve().then(() => call.apply(s, args)),
        where,
      );
    } catch (err) {
      if (!(err instanceof DocketError) || typeof err.code !== 'string' || typeof err.name !== 'string' || !REFUSALS.has(err.code)) {
        throw new Error(`${where()} threw ${show(err)}${err instanceof Error ? `\n${err.stack}` : ''}`);
      }
      const changed = diff(before, await snapshot(raw, prefix));
      if (changed.length > 0) throw new Error(`${where()} refused with ${err.name} (${err.message}) but changed ${changed.join(', ')}`);
      refused.set(err.code, (refused.get(err.code) ?? 0) + 1);
      continue;
    }
    resolved++;
    if (then) await deadline(Promise.resolve(then(value, args)), where);
  }
  return { resolved, refused };
}

describe('fuzz: hostile arguments to every public method', () => {
  const redis = useRedis();

  it(`gives a result or a typed DocketError, and writes nothing when it refuses (${CASES} calls and ${CLOSED_CASES} closed, seed ${SEED})`, async () => {
    const url = new URL(testUrl());
    url.pathname = `/${FUZZ_DB}`;
    // Small limits, so that random values cross them.
    const s = await redis.scheduler({ url: url.href, maxPayloadBytes: 4096, maxResultBytes: 1024 });
    const raw = await redis.raw();
    await raw.select(FUZZ_DB);
    const started = performance.now();
    const open = await fuzz(s, raw, s.prefix, new Rng(SEED), CASES);
    // And a closed scheduler: every call refused (ClosedError), or answered without I/O.
    const shut = await redis.scheduler({ url: url.href });
    await shut.close();
    const closed = await fuzz(shut, raw, shut.prefix, new Rng(SEED + 1), CLOSED_CASES);
    const ms = Math.round(performance.now() - started);
    const codes = [...open.refused]
      .sort((a, b) => b[1] - a[1])
      .map(([code, n]) => `${code} ${n}`)
      .join(', ');
    const refused = [...open.refused.values()].reduce((a, b) => a + b, 0);
    console.log(
      `fuzz: ${CASES + CLOSED_CASES} calls in ${ms} ms, seed ${SEED}: ${open.resolved} resolved and ${refused} refused (${codes}); ` +
        `then ${CLOSED_CASES} on a closed scheduler, ${closed.refused.get('ERR_CLOSED') ?? 0} refused as closed`,
    );
    expect(open.resolved + refused).toBe(CASES);
    expect(closed.refused.get('ERR_CLOSED')).toBeGreaterThan(0);
  }, 180_000); // about 7 s; the ceiling leaves room for a loaded machine
});

/** Each key under the prefix, with a digest of its value and its TTL (ms, -1 for none). */
async function snapshot(raw: RedisClientType, prefix: string): Promise<Map<string, [string, number]>> {
  const keys: string[] = [];
  for await (const key of raw.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) keys.push(key);
  const map = new Map<string, [string, number]>();
  if (keys.length === 0) return map;
  const digest = `local out = {} for i, k in ipairs(KEYS) do local d = redis.call('DUMP', k)
    out[i] = { d and redis.sha1hex(d) or '', redis.call('PTTL', k) } end return out`;
  const reply = (await runLua(raw, digest, keys)) as Array<[string, number]>;
  // PTTL -2: the key expired between SCAN and the script.
  keys.forEach((k, i) => reply[i][1] !== -2 && map.set(k, reply[i]));
  return map;
}

/** What changed between two snapshots; a key with a TTL may have expired meanwhile. */
function diff(before: Map<string, [string, number]>, after: Map<string, [string, number]>): string[] {
  const changed: string[] = [];
  for (const [key, [sha, ttl]] of before) {
    const now = after.get(key);
    if (now === undefined) {
      if (ttl < 0) changed.push(`${key} (deleted)`);
    } else if (now[0] !== sha) changed.push(`${key} (changed)`);
  }
  for (const key of after.keys()) if (!before.has(key)) changed.push(`${key} (created)`);
  return changed;
}

function deadline<T>(promise: Promise<T>, where: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${where()} did not settle within ${CALL_MS} ms`)), CALL_MS)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A short, safe description of any value (hostile ones included) for a failure message. */
function show(value: unknown, depth = 0): string {
  try {
    if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…(${value.length})` : value);
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'function') return 'function';
    if (typeof value === 'symbol' || typeof value !== 'object' || value === null) return String(value);
    if (depth > 3) return '…';
    if (value instanceof Error) return `${value.name}: ${value.message}`;
    if (Array.isArray(value))
      return `[${value
        .slice(0, 5)
        .map((v) => show(v, depth + 1))
        .join(', ')}${value.length > 5 ? ', …' : ''}]`;
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return `<${proto?.constructor?.name ?? 'object'}>`;
    const keys = Object.keys(value);
    return `{${keys
      .slice(0, 6)
      .map((k) => `${k}: ${show((value as Record<string, unknown>)[k], depth + 1)}`)
      .join(', ')}${keys.length > 6 ? ', …' : ''}}`;
  } catch {
    return '<unreadable>';
  }
}
