/**
 * History (issue 31): a queue keeps its done tasks, bounded by count and age (keep()), apart from
 * the live ones, so a kept done task is no live duplicate; get, list('done'), result and runAgain
 * read it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keysUnder, sleep, testUrl, useRedis } from './support/harness';
import { DONE_HISTORY, HISTORY_BY_DEFAULT } from '../lib/domain/domain';
import type { PutOptions, Scheduler } from '../lib';
import { main } from '../lib/surfaces/cli/main';
import { createDashboard } from '../lib/surfaces/dashboard';

const redis = useRedis();

/** Puts `data` (with `options`), claims and acks it (with `result`); its hash. */
async function finish(s: Scheduler, data: unknown, result?: unknown, options?: PutOptions): Promise<string> {
  const { hash } = await s.put(data as string, options);
  expect(await s.ack((await s.claim())!, result as string)).toBe(true);
  return hash;
}

/** A scheduler whose default queue keeps a history with the default caps (keep({ done: {} })). */
async function withHistory() {
  const s = await redis.scheduler();
  await s.keep({ done: {} });
  return s;
}

describe('the done history', () => {
  it('keeps a done task with its data, name, group, result, attempts, worker and times', async () => {
    const s = await withHistory();
    const { hash } = await s.put({ n: 1 }, { name: 'job', group: 'g1' });
    const task = (await s.claim())!;
    expect(await s.ack(task, { ok: 1234567890123 })).toBe(true);
    const info = (await s.get(hash))!;
    expect(info).toMatchObject({ hash, state: 'done', data: { n: 1 }, name: 'job', group: 'g1', attempts: 1, leaseUntil: null });
    expect(info.worker).toEqual(expect.any(String));
    expect(info.done).toMatchObject({ result: { ok: 1234567890123 } });
    const { putAt, startedAt, finishedAt } = info.done!;
    expect(putAt).toBeLessThanOrEqual(startedAt!);
    expect(startedAt!).toBeLessThanOrEqual(finishedAt);
    expect(await s.result(hash)).toMatchObject({ state: 'done', result: { ok: 1234567890123 }, attempts: 1, finishedAt });
    expect(await s.stats()).toMatchObject({ ready: 0, active: 0, totals: { completed: 1 } });
  });

  it('records the first-started time only while the history is on, or for a task with its own keep', async () => {
    const s = await redis.scheduler();
    await s.keep({ done: { count: 0 } });
    const off = await s.put('leased while off');
    const own = await s.put('own keep', { keep: { done: { count: 5 } } });
    const tasks = await s.claimMany(2);
    await s.keep({ done: {} });
    for (const task of tasks) expect(await s.ack(task)).toBe(true);
    // Leased with the queue's history off: the lease wrote no first-started time (one number less a task).
    expect((await s.get(off.hash))!.done).toMatchObject({ startedAt: null });
    expect((await s.get(own.hash))!.done!.startedAt).toEqual(expect.any(Number));
  });

  it('is no live duplicate: the same data put again is added, and its live run wins get()', async () => {
    const s = await withHistory();
    const first = await finish(s, 'same');
    const again = await s.put('same');
    expect(again).toMatchObject({ hash: first, added: true, status: 'added' });
    expect((await s.get(first))!.state).toBe('ready');
  });

  it('answers no stale done run once a later run of the same task leaves without a trace', async () => {
    const s = await withHistory();
    const hash = await finish(s, 'twice', 'first run');
    await s.put('twice', { maxAttempts: 1 });
    await s.fail((await s.claim())!, { error: new Error('second run') });
    expect((await s.get(hash))!.state).toBe('dead');
    expect(await s.purgeDead()).toBe(1);
    // The put of the second run made the first run no longer its latest: nothing claims the task
    // is done, while the list still shows the first run's row.
    expect(await s.get(hash)).toBeNull();
    expect(await s.result(hash)).toBeNull();
    expect((await s.list('done')).tasks.map((t) => [t.hash, t.done?.result])).toEqual([[hash, 'first run']]);
  });

  it('keeps each run of a task as its own row: the list shows them all, get() and result() the latest', async () => {
    const s = await withHistory();
    const hash = await finish(s, 'same', 'run 1');
    expect(await finish(s, 'same', 'run 2')).toBe(hash);
    expect(await finish(s, 'same', 'run 3')).toBe(hash);
    const page = await s.list('done');
    expect(page.total).toBe(3);
    expect(page.tasks.map((t) => [t.hash, t.done?.result])).toEqual([
      [hash, 'run 3'],
      [hash, 'run 2'],
      [hash, 'run 1'],
    ]);
    expect((await s.get(hash))!.done).toMatchObject({ result: 'run 3' });
    expect(await s.result(hash)).toMatchObject({ state: 'done', result: 'run 3' });
    expect(await s.stats()).toMatchObject({ totals: { completed: 3 } });
  });

  it('keeps the newest N by finish order, even among finishes in one millisecond', async () => {
    const s = await redis.scheduler();
    await s.keep({ done: { count: 3 } });
    for (let i = 0; i < 6; i++) await s.put(i);
    // Acked at once (one connection: Redis runs them in this order, most in one millisecond), in
    // descending hash order, which a tie broken by hash would turn round.
    const tasks = (await s.claimMany(6)).sort((a, b) => (a.hash < b.hash ? 1 : -1));
    expect(await Promise.all(tasks.map((task) => s.ack(task)))).toEqual(tasks.map(() => true));
    const page = await s.list('done');
    expect(page.tasks.map((t) => t.data)).toEqual(
      tasks
        .slice(3)
        .map((t) => t.data)
        .reverse(),
    );
  });

  it('reads rows written before runs (a record at the task id), drops one at its next run, and trims them', async () => {
    const s = await withHistory();
    const raw = await redis.raw();
    const key = (k: string) => `${s.prefix}:{default}:${k}`;
    // Rows as they were before each run had its own: field and member '<id>'.
    const legacy = async (hash: string) => {
      const fields = await raw.hGetAll(key('history'));
      const row = Object.keys(fields).find((f) => f.endsWith(`|${hash}`))!;
      const finished = Number(await raw.zScore(key('done'), row));
      await raw.hDel(key('history'), [row, hash]);
      await raw.zRem(key('done'), row);
      await raw.hSet(key('history'), hash, fields[row]);
      await raw.zAdd(key('done'), { score: finished, value: hash });
    };
    const a = await finish(s, 'a', 'old a');
    await legacy(a);
    const b = await finish(s, 'b', 'old b');
    await legacy(b);
    expect((await s.get(a))!.done).toMatchObject({ result: 'old a' });
    expect(await s.result(b)).toMatchObject({ state: 'done', result: 'old b' });
    expect((await s.list('done')).tasks.map((t) => [t.hash, t.done?.result])).toEqual([
      [b, 'old b'],
      [a, 'old a'],
    ]);
    // A new run of a drops its old row, as a new run always did; its own row is kept.
    expect(await finish(s, 'a', 'new a')).toBe(a);
    expect((await s.list('done')).tasks.map((t) => [t.hash, t.done?.result])).toEqual([
      [a, 'new a'],
      [b, 'old b'],
    ]);
    // Trimmed to one: the old row of b goes, field and member.
    await s.keep({ done: { count: 1 } });
    await finish(s, 'c');
    expect((await s.list('done')).tasks.map((t) => t.data)).toEqual(['c']);
    expect(await raw.hExists(key('history'), b)).toBe(false);
    expect(await s.get(b)).toBeNull();
  });

  it('lists done tasks newest first, paged', async () => {
    const s = await withHistory();
    const hashes: string[] = [];
    for (let i = 0; i < 3; i++) {
      hashes.push(await finish(s, i, i * 10));
      await sleep(2);
    }
    const page = await s.list('done');
    expect(page.total).toBe(3);
    expect(page.tasks.map((t) => t.hash)).toEqual([...hashes].reverse());
    expect(page.tasks[0]).toMatchObject({ state: 'done', data: 2, done: { result: 20 } });
    const second = await s.list('done', { offset: 1, limit: 1 });
    expect(second.tasks.map((t) => t.data)).toEqual([1]);
    const previews = await s.list('done', { preview: 10 });
    expect(previews.tasks[0]).toMatchObject({ preview: '2', done: { result: 20 } });
  });

  it('trims by count, a bounded number per call, and keeps its keys for the age only', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.keep({ done: { count: 2, age: 60_000 } });
    for (let i = 0; i < 5; i++) await finish(s, i);
    const page = await s.list('done');
    expect(page.tasks.map((t) => t.data)).toEqual([4, 3]);
    // Two rows, and each one's pointer from its task id (the latest run of each).
    expect(await raw.hLen(`${s.prefix}:{default}:history`)).toBe(4);
    const ttl = await raw.pTTL(`${s.prefix}:{default}:done`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('empties itself once idle past the age', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.keep({ done: { age: 100 } });
    const hash = await finish(s, 'x');
    expect((await s.get(hash))!.state).toBe('done');
    await sleep(150);
    expect(await s.get(hash)).toBeNull();
    expect(await s.result(hash)).toBeNull();
    const keys = await keysUnder(raw, s.prefix);
    expect(keys.filter((k) => k.endsWith(':done') || k.endsWith(':history'))).toEqual([]);
  });

  it('trims by age as later tasks finish', async () => {
    const s = await redis.scheduler();
    await s.keep({ done: { age: 100 } });
    await finish(s, 'old');
    await sleep(150);
    await finish(s, 'new');
    expect((await s.list('done')).tasks.map((t) => t.data)).toEqual(['new']);
  });

  it('is off with a count of 0: nothing is kept', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.keep({ done: { count: 0 } });
    const hash = await finish(s, 'x');
    expect(await s.get(hash)).toBeNull();
    expect((await s.list('done')).total).toBe(0);
    expect(await keysUnder(raw, s.prefix)).toEqual([`${s.prefix}:queues`, ...['acked', 'counts', 'events', 'keep', 'minutes', 'wake'].map((k) => `${s.prefix}:{default}:${k}`)]);
  });

  it('caps the dead set by the queue’s own keep()', async () => {
    const s = await redis.scheduler();
    await s.keep({ dead: { count: 1 } });
    for (const data of ['a', 'b']) {
      await s.put(data, { maxAttempts: 1 });
      await s.fail((await s.claim())!, { retryIn: 0 });
      await sleep(2); // deaths in one millisecond tie in the dead set, ordered by hash then
    }
    await s.claim();
    expect((await s.list('dead')).tasks.map((t) => t.data)).toEqual(['b']);
  });

  it('refuses bad caps with a ValidationError', async () => {
    const s = await redis.scheduler();
    await expect(s.keep({ done: { count: -1 } })).rejects.toMatchObject({ name: 'ValidationError' });
    await expect(s.keep({ done: { age: 0 } })).rejects.toMatchObject({ name: 'ValidationError' });
    await expect(s.keep({ done: { count: 1, ages: 5 } } as never)).rejects.toMatchObject({ name: 'ValidationError' });
  });

  it('runs a done task again with its data and options; de-dup rules apply', async () => {
    const s = await withHistory();
    const hash = await finish(s, { a: 1 }, undefined, { name: 'job', priority: 3, maxAttempts: 2 });
    const again = (await s.runAgain(hash))!;
    expect(again).toMatchObject({ hash, added: true, status: 'added' });
    expect(await s.get(hash)).toMatchObject({ state: 'ready', data: { a: 1 }, name: 'job', level: 3, maxAttempts: 2 });
    // The done run is still kept, and its new run is live: de-dup answers it.
    expect(await s.runAgain(hash)).toMatchObject({ hash, added: false, status: 'duplicate' });
    expect(await s.runAgain('0'.repeat(32))).toBeNull();
  });

  it('is on by default for a queue without keep(), with bounded caps: the last 1,000 for a day', async () => {
    expect(HISTORY_BY_DEFAULT).toBe(true);
    expect(DONE_HISTORY).toEqual({ count: 1000, age: 24 * 3600 * 1000 });
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const hash = await finish(s, 'x');
    expect((await s.get(hash))!.state).toBe('done');
    const ttl = await raw.pTTL(`${s.prefix}:{default}:history`);
    expect(ttl).toBeGreaterThan(DONE_HISTORY.age - 60_000);
    expect(ttl).toBeLessThanOrEqual(DONE_HISTORY.age);
  });

  it('measures the bytes a kept done task costs (MEMORY USAGE)', async () => {
    const s = await withHistory();
    const raw = await redis.raw();
    const n = 200;
    await s.putMany(Array.from({ length: n }, (_, i) => ({ data: { id: i, body: 'x'.repeat(40) } })));
    const before = { done: 0, history: 0 };
    for (let left = n; left > 0;) {
      const tasks = await s.claimMany(Math.min(left, 100));
      for (const t of tasks) await s.ack(t, { ok: true });
      left -= tasks.length;
    }
    const usage = async (k: string) => Number((await raw.sendCommand(['MEMORY', 'USAGE', `${s.prefix}:{default}:${k}`, 'SAMPLES', '0'])) ?? 0);
    const bytes = ((await usage('done')) - before.done + (await usage('history')) - before.history) / n;
    // A ~60-byte payload and a small result: a few hundred bytes per kept task.
    expect(bytes).toBeGreaterThan(50);
    expect(bytes).toBeLessThan(600);
    process.stdout.write(`history: ${bytes.toFixed(0)} bytes per kept done task (payload ~60 B)\n`);
  });
});

describe("a task's own keep (put's keep)", () => {
  it('keeps a task out of the history with done: false', async () => {
    const s = await redis.scheduler();
    const kept = await finish(s, 'kept');
    const skipped = await finish(s, 'not kept', undefined, { keep: { done: false } });
    expect((await s.get(kept))!.state).toBe('done');
    expect(await s.get(skipped)).toBeNull();
    expect((await s.list('done')).tasks.map((t) => t.data)).toEqual(['kept']);
  });

  it("keeps a task with its own caps when the queue's history is off, and trims by them at its finish", async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.keep({ done: { count: 0 } });
    const plain = await finish(s, 'plain');
    expect(await s.get(plain)).toBeNull();
    // An age alone, on a queue whose history is off: kept all the same (with the default count).
    const aged = await finish(s, 'aged', undefined, { keep: { done: { age: 60_000 } } });
    expect((await s.get(aged))!.state).toBe('done');
    // Three more with a count of their own: each finish trims to 2, 'aged' included.
    for (const data of ['a', 'b', 'c']) await finish(s, data, `ran ${data}`, { keep: { done: { count: 2, age: 60_000 } } }).then(() => sleep(2));
    expect((await s.list('done')).tasks.map((t) => [t.data, t.done!.result])).toEqual([
      ['c', 'ran c'],
      ['b', 'ran b'],
    ]);
    // The keys' TTL is at least its own age (the queue's age, 24 h here, is not shortened).
    expect(await raw.pTTL(`${s.prefix}:{default}:history`)).toBeGreaterThan(50_000);
  });

  it("trims the queue's history by its own caps at its finish, instead of the queue's", async () => {
    const s = await redis.scheduler();
    await s.keep({ done: { count: 10 } });
    // 2 ms apart: two finishes in one millisecond tie in `done`, whose order then goes by hash.
    for (let i = 0; i < 4; i++) await finish(s, i).then(() => sleep(2));
    await finish(s, 'last', undefined, { keep: { done: { count: 2 } } });
    expect((await s.list('done')).tasks.map((t) => t.data)).toEqual(['last', 3]);
    // Later finishes trim by the queue's caps again.
    await finish(s, 'after');
    expect((await s.list('done')).total).toBe(3);
  });

  it('is stored only when given, shown by get(), and repeated by runAgain()', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const plain = await s.put('plain');
    const own = await s.put('own', { keep: { done: { count: 5, age: { hours: 1 } } } });
    const stored = (hash: string) => raw.hGet(`${s.prefix}:{default}:tasks`, hash);
    expect(await stored(plain.hash)).not.toContain('"kp"');
    expect(await stored(own.hash)).toContain('"kp":{');
    expect((await s.get(plain.hash))!.keep).toBeUndefined();
    expect((await s.get(own.hash))!.keep).toEqual({ done: { count: 5, age: 3_600_000 } });
    while (await s.claim().then((t) => (t ? s.ack(t) : null)));
    expect((await s.get(own.hash))!).toMatchObject({ state: 'done', keep: { done: { count: 5, age: 3_600_000 } } });
    expect(await s.runAgain(own.hash)).toMatchObject({ status: 'added' });
    expect((await s.get(own.hash))!).toMatchObject({ state: 'ready', keep: { done: { count: 5, age: 3_600_000 } } });
    const off = await s.put('off', { keep: { done: false } });
    expect((await s.get(off.hash))!.keep).toEqual({ done: false });
  });

  it('keeps a task that goes dead not at all with dead: false, its outcome and dependents seen to', async () => {
    const s = await redis.scheduler();
    const kept = await s.put('kept dead', { maxAttempts: 1 });
    const gone = await s.put('gone dead', { maxAttempts: 1, keepResult: 60_000, keep: { dead: false } });
    const waiting = await s.put('waits', { after: [gone.hash] });
    for (let i = 0; i < 2; i++) expect(await s.fail((await s.claim())!, { error: `boom ${i}` })).toBe('dead');
    // Dead and listed: the other one, and the task that waited on it (its dependency failed).
    expect((await s.list('dead')).tasks.map((t) => t.hash).sort()).toEqual([kept.hash, waiting.hash].sort());
    expect(await s.get(gone.hash)).toBeNull();
    // Its kept outcome says dead, and what waited on it learnt it (default policy: dead too).
    expect(await s.result(gone.hash)).toMatchObject({ state: 'dead', error: 'boom 1' });
    expect((await s.get(waiting.hash))!.state).toBe('dead');
    expect((await s.stats()).totals).toMatchObject({ dead: 3 });
  });

  it('trims the dead set by its own dead caps when it goes dead, a few entries a death', async () => {
    const s = await redis.scheduler();
    for (const data of ['a', 'b', 'c']) {
      await s.put(data, { maxAttempts: 1 });
      await s.fail((await s.claim())!);
      await sleep(2); // deaths in one millisecond tie in the dead set, ordered by hash then
    }
    await s.put('d', { maxAttempts: 1, keep: { dead: { count: 2 } } });
    // A lapsed lease ends its last attempt too (claim): the same rule.
    await s.claim({ lease: 50 });
    await sleep(80);
    await s.claim();
    expect((await s.list('dead')).tasks.map((t) => t.data)).toEqual(['d', 'c']);
  });

  it('refuses a bad keep with a ValidationError naming the field, and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await expect(s.put('x', { keep: { done: { count: -1 } } })).rejects.toMatchObject({ name: 'ValidationError', field: 'options.keep.done.count' });
    await expect(s.put('x', { keep: { done: { age: 0 } } })).rejects.toMatchObject({ name: 'ValidationError', field: 'options.keep.done.age' });
    await expect(s.put('x', { keep: { done: true } } as never)).rejects.toMatchObject({ name: 'ValidationError', field: 'options.keep.done' });
    await expect(s.put('x', { keep: { dead: 'no' } } as never)).rejects.toMatchObject({ name: 'ValidationError', field: 'options.keep.dead' });
    await expect(s.put('x', { keep: { dead: { count: 2, age: -5 } } })).rejects.toMatchObject({ name: 'ValidationError', field: 'options.keep.dead.age' });
    await expect(s.putMany([{ data: 1 }, { data: 2, options: { keep: { done: { count: 1.5 } } } }])).rejects.toMatchObject({
      name: 'ValidationError',
      field: 'items[1].options.keep.done.count',
    });
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});

describe("a done task's log", () => {
  it('is kept with the done task, readable by logs(), and goes with its history entry', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.keep({ done: { count: 1 } });
    const { hash } = await s.put('logged');
    const task = (await s.claim())!;
    for (const line of ['one', 'two "quoted"\nand a newline', 'three']) expect(await s.log(task, line)).toBe(true);
    expect(await s.ack(task)).toBe(true);
    // The live log went with the ack; the history keeps a copy of its entries.
    expect(await raw.exists(`${s.prefix}:{default}:logs`)).toBe(0);
    expect((await s.logs(hash)).map((l) => l.line)).toEqual(['one', 'two "quoted"\nand a newline', 'three']);
    // Its field in the history is no task: a hash naming it finds none.
    expect(await s.get(`${hash}|log`)).toBeNull();
    expect(await s.result(`${hash}|log`)).toBeNull();
    // Trimmed (count 1): its entry and its log go.
    await finish(s, 'next');
    expect(await s.get(hash)).toBeNull();
    expect(await s.logs(hash)).toEqual([]);
    const fields = await raw.hKeys(`${s.prefix}:{default}:history`);
    expect(fields).toHaveLength(2); // the next task's row and its pointer
    expect(fields.filter((f) => f.endsWith('|log'))).toEqual([]);
  });

  it('keeps only the newest whole lines, up to 64 KiB, of a longer log', async () => {
    const s = await redis.scheduler({ logMaxBytes: 1024 * 1024, logMaxLines: 10_000 });
    const raw = await redis.raw();
    const { hash } = await s.put('chatty');
    const task = (await s.claim())!;
    const lines = Array.from({ length: 200 }, (_, i) => `${String(i).padStart(3, '0')} ${'x'.repeat(996)}`);
    await Promise.all(lines.map((line) => s.log(task, line)));
    expect((await s.logs(hash)).length).toBe(200);
    expect(await s.ack(task)).toBe(true);
    const kept = (await s.logs(hash)).map((l) => l.line);
    expect(kept.length).toBeGreaterThan(50);
    expect(kept.length).toBeLessThan(70);
    expect(kept).toEqual(lines.slice(-kept.length));
    const field = (await raw.hKeys(`${s.prefix}:{default}:history`)).find((f) => f.endsWith(`${hash}|log`))!;
    expect((await raw.hGet(`${s.prefix}:{default}:history`, field))!.length).toBeLessThanOrEqual(65536);
  });

  it('goes when a new run of the task starts, and with the keys once idle past the age', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.keep({ done: { age: 150 } });
    const { hash } = await s.put('again');
    let task = (await s.claim())!;
    await s.log(task, 'first run');
    await s.ack(task);
    expect((await s.logs(hash)).map((l) => l.line)).toEqual(['first run']);
    await s.put('again');
    expect(await s.logs(hash)).toEqual([]);
    task = (await s.claim())!;
    await s.log(task, 'second run');
    await s.ack(task);
    expect((await s.logs(hash)).map((l) => l.line)).toEqual(['second run']);
    await sleep(200);
    expect(await s.logs(hash)).toEqual([]);
    expect(await raw.exists(`${s.prefix}:{default}:history`)).toBe(0);
  });
});

describe('the history in the CLI and the dashboard', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function serve(s: Scheduler): Promise<string> {
    const server = createServer(createDashboard(s));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    server.unref();
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('docket list --state done shows who ran each task, when it finished and its result', async () => {
    const s = await withHistory();
    const hash = await finish(s, { mail: 'a' }, { sent: true }, { name: 'send' });
    let stdout = '';
    const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => {} }, env: {} };
    expect(await main(['list', 'default', '--state', 'done', '--url', testUrl(), '--prefix', s.prefix], io)).toBe(0);
    expect(stdout).toMatch(/HASH\s+NAME\s+FINISHED\s+WORKER\s+ATTEMPTS\s+RESULT\s+DATA/);
    expect(stdout).toContain(hash);
    expect(stdout).toContain('{"sent":true}');
  });

  it('has a Done tab listing the history, and Run again puts the task again, saying what de-dup made of it', async () => {
    const s = await withHistory();
    const hash = await finish(s, { job: 1 }, 'ok');
    const base = await serve(s);
    const page = await (await fetch(`${base}/tasks?queue=default&state=done`)).text();
    expect(page).toContain('Done');
    expect(page).toContain(hash);
    expect(page).toContain('Run again');
    const taskPage = await (await fetch(`${base}/task?queue=default&hash=${hash}`)).text();
    expect(taskPage).toContain('Run again');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1];
    const again = (queue: string) =>
      fetch(`${base}/api/run-again`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify({ queue, hash }) });
    const first = await again('default');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true, queue: 'default', hash, status: 'added' });
    expect((await s.get(hash))!.state).toBe('ready');
    // Its new run is live: the answer says de-dup kept that one.
    expect(await (await again('default')).json()).toEqual({ ok: true, queue: 'default', hash, status: 'duplicate' });
    expect((await again('nowhere')).status).toBe(404);
  });
});
