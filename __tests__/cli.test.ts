/**
 * The `docket` CLI, run in-process through main() against the test Redis: every command's output
 * (table and --json), its effect on Redis as the scheduler sees it, and its exit code. One test
 * spawns the real bin entry.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { RedisClientType } from 'redis';
import { main, type Io } from '../lib/surfaces/cli/main';
import { queueKeys } from '../lib/domain/keys';
import { eventually, keysUnder, readRecord, serverNow, sleep, testUrl, uniquePrefix, useRedis, writeRecord } from './support/harness';

const redis = useRedis();

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `args` and an io that captures both streams. */
async function cli(args: string[], extra: Partial<Io> = {}): Promise<Result> {
  const result = { code: -1, stdout: '', stderr: '' };
  const io: Io = {
    stdout: { write: (s: string) => (result.stdout += s) },
    stderr: { write: (s: string) => (result.stderr += s) },
    env: {},
    ...extra,
  };
  result.code = await main(args, io);
  return result;
}

/** The CLI on the test Redis under `prefix`; the global flags go after the command. */
const on =
  (prefix: string) =>
  (...args: string[]) =>
    cli([...args, '--url', testUrl(), '--prefix', prefix]);

/** A table's data row whose first cell is `first`, split into cells. */
function row(text: string, first: string): string[] {
  const line = text.split('\n').find((l) => l.split(/\s{2,}/)[0] === first);
  if (!line) throw new Error(`no row ${first} in:\n${text}`);
  return line.split(/\s{2,}/);
}

/** A dead task on `queue`: one attempt, failed with `error`. */
async function deadTask(s: Awaited<ReturnType<typeof redis.scheduler>>, queue: string, data: string, error: string): Promise<string> {
  const { hash } = await s.put(data, { queue, maxAttempts: 1 });
  const task = await s.claim({ queue });
  expect(task?.hash).toBe(hash);
  expect(await s.fail(task!, { error: new Error(error) })).toBe('dead');
  return hash;
}

/**
 * Gives a stored task an impossible time, as a record written by an older or buggy writer may
 * hold: the meta's run-at, and the score of the sorted set the task sits in.
 */
async function setTime(raw: RedisClientType, prefix: string, queue: string, hash: string, set: 'delayed' | 'dead', at: number): Promise<void> {
  const keys = queueKeys(prefix, queue);
  const { meta } = await readRecord(raw, prefix, queue, hash);
  if (set === 'delayed') await writeRecord(raw, prefix, queue, hash, { ...meta, r: at });
  await raw.zAdd(keys[set], { score: at, value: hash });
}

/** A line on stderr that is one line, with no stack frame and no 'unexpected error'. */
const ONE_LINE = /^docket: (?!unexpected error)[^\n]+\n$/;

describe('stats', () => {
  it('shows one row per registered queue, and JSON equal to scheduler.stats()', async () => {
    const s = await redis.scheduler();
    const [first] = await s.putMany([
      { data: 1, options: { queue: 'emails' } },
      { data: 2, options: { queue: 'emails' } },
      { data: 3, options: { queue: 'emails', delay: 60_000 } },
    ]);
    await s.putMany([4, 5, 6].map((data) => ({ data, options: { queue: 'emails', after: [first.hash] } })));
    await s.put('r', { queue: 'reports' });
    await s.claim({ queue: 'reports' });
    await s.pause({ queue: 'reports' });
    const docket = on(s.prefix);

    const table = await docket('stats');
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(row(table.stdout, 'QUEUE')).toEqual(['QUEUE', 'READY', 'DELAYED', 'WAITING', 'ACTIVE', 'DEAD', 'PAUSED', 'COMPLETED', 'FAILED', 'EXPIRED', 'DEDUPED']);
    expect(row(table.stdout, 'emails').map((c) => c.trim())).toEqual(['emails', '2', '1', '3', '0', '0', 'no', '0', '0', '0', '0']);
    expect(row(table.stdout, 'reports').map((c) => c.trim())).toEqual(['reports', '0', '0', '0', '1', '0', 'yes', '0', '0', '0', '0']);

    const json = await docket('stats', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      queues: [
        { queue: 'emails', ...(await s.stats({ queue: 'emails' })) },
        { queue: 'reports', ...(await s.stats({ queue: 'reports' })) },
      ],
    });
  });

  it('shows one named queue only, and says so when no queue is registered', async () => {
    const s = await redis.scheduler();
    await s.put('x', { queue: 'a' });
    await s.put('y', { queue: 'b' });
    const one = await on(s.prefix)('stats', 'b', '--json');
    expect(JSON.parse(one.stdout)).toEqual({ queues: [{ queue: 'b', ...(await s.stats({ queue: 'b' })) }] });

    const empty = on(uniquePrefix());
    expect(await empty('stats')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^no queues under prefix 't-\w+'/) });
    expect(JSON.parse((await empty('stats', '--json')).stdout)).toEqual({ queues: [] });
  });
});

describe('stats of one queue', () => {
  it('fails with exit 1 for a queue docket has no trace of, and says why', async () => {
    const s = await redis.scheduler();
    await s.put('x', { queue: 'emails' });
    const expected = {
      code: 1,
      stdout: '',
      stderr: `docket: unknown queue 'emials' under prefix '${s.prefix}': no task was ever put on it and it has no keys (is --prefix right? 'docket stats' lists every queue)\n`,
    };
    expect(await on(s.prefix)('stats', 'emials')).toEqual(expected);
    const json = await on(s.prefix)('stats', 'emials', '--json');
    expect(json).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'ERR_TARGET', message: expected.stderr.slice('docket: '.length, -1) } });
    // The right queue under the wrong prefix is unknown too.
    expect((await on(uniquePrefix())('stats', 'emails')).code).toBe(1);
  });

  it('knows a queue by its keys when the registry does not list it: tasks and totals, or only limits', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.put('x', { queue: 'q' });
    await s.ack((await s.claim({ queue: 'q' }))!);
    await raw.sRem(`${s.prefix}:queues`, 'q');
    expect(await s.queues()).toEqual([]);
    const gone = await on(s.prefix)('stats', 'q', '--json');
    expect(gone.code).toBe(0);
    expect(JSON.parse(gone.stdout)).toEqual({ queues: [{ queue: 'q', ...(await s.stats({ queue: 'q' })) }] });

    await s.limitConcurrency(2, { queue: 'capped' });
    const capped = await on(s.prefix)('stats', 'capped');
    expect(capped).toMatchObject({ code: 0, stderr: '' });
    expect(row(capped.stdout, 'capped').map((c) => c.trim())).toEqual(['capped', '0', '0', '0', '0', '0', 'no', '0', '0', '0', '0']);
    await s.limitRate({ max: 5, per: 1000, queue: 'grouprated', group: 'g' });
    expect((await on(s.prefix)('stats', 'grouprated')).code).toBe(0);
  });
});

describe('--version', () => {
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };

  it("prints package.json's version and exits 0, without connecting, wherever it stands", async () => {
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    // A Redis that is not there, and a command: neither is reached.
    expect(await cli(['stats', 'q', '--version', '--url', 'redis://127.0.0.1:1'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(JSON.parse((await cli(['--json', '--version'])).stdout)).toEqual({ version });
  });

  it('is listed among the global options; --help wins over it', async () => {
    const help = await cli(['--help', '--version']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: docket <command>/);
    expect(help.stdout).toMatch(/^ {2}--version {14}print the version of docket$/m);
  });
});

describe('list', () => {
  it('shows a NAME column when a task on the page has a name, and inspect shows the name', async () => {
    const s = await redis.scheduler();
    const named = await s.put({ n: 1 }, { queue: 'nq', name: 'send-email' });
    const plain = await s.put({ n: 2 }, { queue: 'nq' });
    const docket = on(s.prefix);
    const table = await docket('list', 'nq', '--state', 'ready');
    expect(row(table.stdout, 'HASH').slice(0, 3)).toEqual(['HASH', 'NAME', 'RUN AT']);
    expect(row(table.stdout, named.hash)[1]).toBe('send-email');
    expect(row(table.stdout, plain.hash)[1]).toBe('-');
    expect((await docket('inspect', 'nq', named.hash)).stdout).toMatch(/^name\s+send-email$/m);
  });

  it('lists delayed tasks with relative run-ats, and JSON equal to scheduler.list()', async () => {
    const s = await redis.scheduler();
    const late = await s.put({ to: 'a@b.c' }, { queue: 'q', delay: 300_000, key: 'welcome' });
    const soon = await s.put({ to: 'x@y.z' }, { queue: 'q', delay: 90_000, group: 'tenant-1' });
    const docket = on(s.prefix);

    const table = await docket('list', 'q', '--state', 'delayed');
    expect(table.code).toBe(0);
    expect(row(table.stdout, 'HASH')).toEqual(['HASH', 'RUN AT', 'PRI', 'ATTEMPTS', 'GROUP', 'KEY', 'EXPIRES', 'DATA']);
    expect(row(table.stdout, soon.hash)).toEqual([soon.hash, expect.stringMatching(/^in 1m [2-3]\ds$/), '0', '0/5', 'tenant-1', '-', '-', '{"to":"x@y.z"}']);
    expect(row(table.stdout, late.hash)).toEqual([late.hash, expect.stringMatching(/^in (4m 5\ds|5m)$/), '0', '0/5', '-', 'welcome', '-', '{"to":"a@b.c"}']);
    expect(table.stdout.indexOf(soon.hash)).toBeLessThan(table.stdout.indexOf(late.hash));
    expect(table.stdout).toMatch(/\n1-2 of 2 delayed tasks in queue 'q'\n$/);

    const json = JSON.parse((await docket('list', 'q', '--state', 'delayed', '--json')).stdout);
    const page = await s.list('delayed', { queue: 'q' });
    expect(json).toEqual({ queue: 'q', state: 'delayed', offset: 0, limit: 100, total: 2, now: expect.any(Number), tasks: page.tasks });
    expect(Math.abs(json.now - page.now)).toBeLessThan(5000);
  });

  it('shows the holder and lease time left of active tasks, and the last error of dead ones', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('work', { queue: 'q' });
    await s.claim({ queue: 'q', lease: 60_000 });
    const worker = (await s.get(hash, { queue: 'q' }))!.worker!;
    const dead = await deadTask(s, 'q', 'bad', 'SMTP 550 mailbox unavailable');
    const docket = on(s.prefix);

    const active = await docket('list', 'q', '--state', 'active');
    expect(row(active.stdout, 'HASH')).toEqual(['HASH', 'HOLDER', 'LEASE LEFT', 'ATTEMPTS', 'GROUP', 'DATA']);
    expect(row(active.stdout, hash)).toEqual([hash, worker, expect.stringMatching(/^(5\ds|1m)$/), '1/5', '-', '"work"']);

    const died = await docket('list', 'q', '--state', 'dead');
    expect(row(died.stdout, 'HASH')).toEqual(['HASH', 'DIED', 'ATTEMPTS', 'LAST ERROR', 'DATA']);
    expect(row(died.stdout, dead)).toEqual([dead, expect.stringMatching(/^(now|\ds ago)$/), '1/1', 'Error: SMTP 550 mailbox unavailable', '"bad"']);
    expect(died.stdout).not.toContain('    at '); // only the first line of the stack
  });

  it('lists waiting tasks with how many of their dependencies are not done yet, and JSON equal to scheduler.list()', async () => {
    const s = await redis.scheduler();
    const a = await s.put('a', { queue: 'q' });
    const b = await s.put('b', { queue: 'q' });
    const both = await s.put({ after: 'both' }, { queue: 'q', after: [a.hash, b.hash], delay: 120_000, priority: 2 });
    await sleep(5);
    const one = await s.put({ after: 'one' }, { queue: 'q', after: [b.hash], group: 'g', key: 'k1' });
    const docket = on(s.prefix);

    const table = await docket('list', 'q', '--state', 'waiting');
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(row(table.stdout, 'HASH')).toEqual(['HASH', 'WAITING ON', 'RUN AT', 'PRI', 'GROUP', 'KEY', 'EXPIRES', 'DATA']);
    expect(row(table.stdout, both.hash).map((c) => c.trim())).toEqual([both.hash, '2', expect.stringMatching(/^(in 1m 5\ds|in 2m)$/), '2', '-', '-', '-', '{"after":"both"}']);
    expect(row(table.stdout, one.hash).map((c) => c.trim())).toEqual([one.hash, '1', 'now', '0', 'g', 'k1', '-', '{"after":"one"}']);
    expect(table.stdout.indexOf(both.hash)).toBeLessThan(table.stdout.indexOf(one.hash));
    expect(table.stdout).toMatch(/\n1-2 of 2 waiting tasks in queue 'q'\n$/);

    const json = JSON.parse((await docket('list', 'q', '--state', 'waiting', '--json')).stdout);
    expect(json).toEqual({ queue: 'q', state: 'waiting', offset: 0, limit: 100, total: 2, now: expect.any(Number), tasks: (await s.list('waiting', { queue: 'q' })).tasks });
    expect(json.tasks.map((t: { waitingOn: number }) => t.waitingOn)).toEqual([2, 1]);
    const second = await docket('list', 'q', '--state', 'waiting', '--offset', '1');
    expect(second.stdout).not.toContain(both.hash);
    expect(second.stdout).toMatch(/\n2-2 of 2 waiting tasks in queue 'q'\n$/);

    // a and b done: nothing waits any more.
    for (let i = 0; i < 2; i++) await s.ack((await s.claim({ queue: 'q' }))!);
    expect((await docket('list', 'q', '--state', 'waiting')).stdout).toBe("no waiting tasks in queue 'q'\n");
  });

  it('pages with --limit and --offset', async () => {
    const s = await redis.scheduler();
    const puts = await s.putMany([1, 2, 3].map((n) => ({ data: n, options: { queue: 'q' } })));
    const docket = on(s.prefix);
    const first = await docket('list', 'q', '--state', 'ready', '--limit', '2');
    expect(first.stdout).toContain(puts[0].hash);
    expect(first.stdout).toContain(puts[1].hash);
    expect(first.stdout).not.toContain(puts[2].hash);
    expect(first.stdout).toMatch(/1-2 of 3 ready tasks in queue 'q'; next page: --offset 2\n$/);
    const rest = JSON.parse((await docket('list', 'q', '--state', 'ready', '--offset=2', '--json')).stdout);
    expect(rest).toMatchObject({ total: 3, offset: 2, tasks: [{ hash: puts[2].hash, data: 3 }] });
    expect((await docket('list', 'q', '--state', 'dead')).stdout).toBe("no dead tasks in queue 'q'\n");
  });
});

describe('inspect', () => {
  it('shows every field of a task, its JSON equal to scheduler.get(), and exits 1 for an unknown hash', async () => {
    const s = await redis.scheduler();
    const hash = await deadTask(s, 'q', 'payload', 'boom\nsecond line');
    const docket = on(s.prefix);

    const text = await docket('inspect', 'q', hash);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^hash +${hash}\\nqueue +q\\nstate +dead\\n`));
    expect(text.stdout).toMatch(/\nrun at +\d{4}-\d\d-\d\dT[\d:.]+Z \((now|\ds ago)\)\n/);
    expect(text.stdout).toMatch(/\nattempts +1 of 1\n/);
    expect(text.stdout).toMatch(/\nlast error +Error: boom\n +second line\n/);

    const json = JSON.parse((await docket('inspect', 'q', hash, '--json')).stdout);
    expect(json).toEqual({ now: expect.any(Number), task: await s.get(hash, { queue: 'q' }), dependencies: [], logs: [] });
    expect(text.stdout).not.toContain('put after');

    const missing = await docket('inspect', 'q', 'f'.repeat(32));
    expect(missing).toEqual({ code: 1, stdout: '', stderr: `docket: no task ${'f'.repeat(32)} in queue 'q'\n` });
  });
});

describe('inspect: dependencies', () => {
  it('lists the tasks a task was put after with the state of each, escaped, and --json gives them as dependencies() has them', async () => {
    const s = await redis.scheduler();
    await s.put('elsewhere', { queue: 'other' });
    const done = await s.put('done', { queue: 'q', keepResult: 60_000 });
    const live = await s.put('live', { queue: 'q' });
    await s.ack((await s.claim({ queue: 'q' }))!);
    const odd = 'gone\u202Eexe.pdf';
    const waiter = await s.put('waiter', { queue: 'q', after: [done.hash, live.hash, { queue: 'other', hash: odd }] });
    const docket = on(s.prefix);

    const text = await docket('inspect', 'q', waiter.hash);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/\nstate +waiting\n/);
    const deps = text.stdout.slice(text.stdout.indexOf('\nput after 3 tasks:\n'));
    expect(row(deps, 'QUEUE')).toEqual(['QUEUE', 'HASH', 'STATE']);
    expect(row(deps, 'q').length).toBe(3);
    expect(deps).toMatch(new RegExp(`\\nq +${done.hash} +done\\n`));
    expect(deps).toMatch(new RegExp(`\\nq +${live.hash} +pending\\n`));
    expect(row(deps, 'other')).toEqual(['other', 'gone\\u202Eexe.pdf', 'gone']);
    expect(deps).toContain('gone: no record and no kept outcome');
    expect(text.stdout).not.toMatch(/[\u202a-\u202e]/);

    const json = JSON.parse((await docket('inspect', 'q', waiter.hash, '--json')).stdout);
    expect(json).toEqual({ now: expect.any(Number), task: await s.get(waiter.hash, { queue: 'q' }), dependencies: await s.dependencies(waiter.hash, { queue: 'q' }), logs: [] });
    expect(json.dependencies.map((d: { hash: string; outcome: { state: string } | null }) => [d.hash, d.outcome?.state ?? null])).toEqual([
      [done.hash, 'done'],
      [live.hash, 'pending'],
      [odd, null],
    ]);
  });

  it('shows the first 50 of many, and says how many more --json lists', async () => {
    const s = await redis.scheduler();
    const roots = await s.putMany(Array.from({ length: 60 }, (_, i) => ({ data: i, options: { queue: 'q' } })));
    const waiter = await s.put('waiter', { queue: 'q', after: roots.map((r) => r.hash) });
    const docket = on(s.prefix);
    const text = (await docket('inspect', 'q', waiter.hash)).stdout;
    expect(text).toContain('\nput after 60 tasks:\n');
    expect(text.split('\n').filter((l) => / pending$/.test(l))).toHaveLength(50);
    expect(text).toContain('… and 10 more (--json lists them all)\n');
    expect(JSON.parse((await docket('inspect', 'q', waiter.hash, '--json')).stdout).dependencies).toHaveLength(60);
  });
});

describe('inspect: progress and kept outcomes', () => {
  /** Characters that hide or reorder text: none may reach the terminal raw. */
  const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/;

  it('shows the progress of an active task and its keepResult, its JSON equal to scheduler.get()', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('convert', { queue: 'q', keepResult: 90_000 });
    expect(await s.progress((await s.claim({ queue: 'q', lease: 60_000 }))!, { done: 3, of: 10 })).toBe(true);
    const docket = on(s.prefix);

    const text = await docket('inspect', 'q', hash);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(/\nstate +active\n/);
    expect(text.stdout).toMatch(/\nprogress +\{"done":3,"of":10\}\n/);
    expect(text.stdout).toMatch(/\nkeep result +1m 30s once finished\n/);
    const json = JSON.parse((await docket('inspect', 'q', hash, '--json')).stdout);
    expect(json).toEqual({ now: expect.any(Number), task: await s.get(hash, { queue: 'q' }), dependencies: [], logs: [] });
    expect(json.task.progress).toEqual({ done: 3, of: 10 });

    // Before any report, and without keepResult: a dash, and no keep result line.
    const plain = await s.put('plain', { queue: 'q' });
    const before = (await docket('inspect', 'q', plain.hash)).stdout;
    expect(before).toMatch(/\nprogress +-\n/);
    expect(before).not.toContain('keep result');
  });

  it('shows hostile progress escaped and cut, and whole under --json', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('x', { queue: 'q' });
    const value = { note: 'ok\u202Egpj.exe\u001b[2J<script>alert(1)</script>\u200b', pad: 'y'.repeat(3000) };
    expect(await s.progress((await s.claim({ queue: 'q', lease: 60_000 }))!, value)).toBe(true);
    const docket = on(s.prefix);

    const text = await docket('inspect', 'q', hash);
    expect(text.stdout).not.toMatch(HIDDEN);
    const line = text.stdout.split('\n').find((l) => l.startsWith('progress'))!;
    expect(line).toContain('ok\\u202egpj.exe\\u001b[2J<script>alert(1)</script>\\u200b');
    expect(line).toMatch(/y… \(3,\d{3} characters in all; --json prints it whole\)$/);
    expect(line.length).toBeLessThan(600);
    const json = await docket('inspect', 'q', hash, '--json');
    expect(json.stdout).not.toMatch(HIDDEN);
    expect(JSON.parse(json.stdout).task.progress).toEqual(value);
  });

  it("shows a finished task's kept result, escaped and cut, and --json gives the outcome", async () => {
    const s = await redis.scheduler();
    // The kept outcome alone: with the done history (on by default) the task would still be found.
    await s.keep({ queue: 'q', done: { count: 0 } });
    const { hash } = await s.put('work', { queue: 'q', keepResult: 60_000 });
    const result = { ok: true, said: 'fine\u2066\u001b]0;owned\u0007', tail: 'z'.repeat(2000) };
    expect(await s.ack((await s.claim({ queue: 'q' }))!, result)).toBe(true);
    expect(await s.get(hash, { queue: 'q' })).toBeNull();
    const docket = on(s.prefix);

    const text = await docket('inspect', 'q', hash);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(new RegExp(`^hash +${hash}\\nqueue +q\\nstate +done \\(finished; its kept outcome\\)\\n`));
    expect(text.stdout).toMatch(/\nfinished +\d{4}-\d\d-\d\dT[\d:.]+Z \((now|\ds ago)\)\nattempts +1\n/);
    expect(text.stdout).toContain('result    {"ok":true,"said":"fine\\u2066\\u001b]0;owned\\u0007","tail":"zzz');
    expect(text.stdout).toMatch(/z… \(2,\d{3} characters in all; --json prints it whole\)\n$/);
    expect(text.stdout).not.toMatch(HIDDEN);
    const json = await docket('inspect', 'q', hash, '--json');
    expect(json.stdout).not.toMatch(HIDDEN);
    expect(JSON.parse(json.stdout)).toEqual({ now: expect.any(Number), outcome: await s.result(hash, { queue: 'q' }) });
    expect(JSON.parse(json.stdout).outcome).toMatchObject({ state: 'done', result });
  });

  it("shows a dead task's kept error after a purge, escaped and cut at 2,000 characters", async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('dies', { queue: 'q', keepResult: 60_000, maxAttempts: 1 });
    const error = `boom \u202Eevil\u001b[31m\n${'stack line\n'.repeat(400)}`;
    expect(await s.fail((await s.claim({ queue: 'q' }))!, { error })).toBe('dead');
    await s.purgeDead({ queue: 'q' });
    const docket = on(s.prefix);

    const text = await docket('inspect', 'q', hash);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/\nstate +dead \(finished; its kept outcome\)\n/);
    expect(text.stdout).toContain('error     boom \\u202Eevil\\u001B[31m\n          stack line\n');
    expect(text.stdout).not.toMatch(HIDDEN);
    const shown = text.stdout.slice(text.stdout.indexOf('error'));
    expect(shown.length).toBeLessThan(2000 + 300 * 10);
    expect(shown).toMatch(/…\n$/);

    // A failed until-start task merged into the task of its identity that waits: it names that task.
    const first = await s.put('refresh', { queue: 'q', keepResult: 60_000, unique: 'until-start' });
    const held = (await s.claim({ queue: 'q' }))!;
    const next = await s.put('refresh', { queue: 'q', keepResult: 60_000, unique: 'until-start' });
    expect(await s.fail(held, { error: 'stale' })).toBe('merged');
    const merged = await docket('inspect', 'q', first.hash);
    expect(merged.stdout).toMatch(new RegExp(`\\nstate +merged \\(finished; its kept outcome\\)\\n[^]*\\ninto +${next.hash}\\n$`));

    // Nothing kept (no keepResult, the queue's history off): still no task, in one line.
    await s.keep({ queue: 'other', done: { count: 0 } });
    const plain = await s.put('gone', { queue: 'other' });
    await s.ack((await s.claim({ queue: 'other' }))!);
    expect(await docket('inspect', 'other', plain.hash)).toEqual({ code: 1, stdout: '', stderr: `docket: no task ${plain.hash} in queue 'other'\n` });
  });
});

describe('result', () => {
  it('answers the live state, a kept outcome, and exits 1 for a hash docket knows nothing of', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put({ n: 1 }, { queue: 'q', keepResult: 60_000 });
    const docket = on(s.prefix);

    const live = await docket('result', 'q', hash);
    expect(live).toMatchObject({ code: 0, stderr: '' });
    expect(live.stdout).toMatch(new RegExp(`^hash +${hash}\\nqueue +q\\nstate +pending\\nrun at .*\\nattempts +0\\nprogress +-\\n$`));
    expect(JSON.parse((await docket('result', 'q', hash, '--json')).stdout)).toEqual({ now: expect.any(Number), outcome: await s.result(hash, { queue: 'q' }) });

    await s.ack((await s.claim({ queue: 'q' }))!, { squared: 1 });
    const done = await docket('result', 'q', hash);
    expect(done.stdout).toMatch(/\nstate +done\nfinished .*\nattempts +1\nresult +\{"squared":1\}\n$/);

    const unknown = await docket('result', 'q', 'f'.repeat(32));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(ONE_LINE);
    expect(unknown.stderr).toContain(`nothing known of task ${'f'.repeat(32)} in queue 'q'`);
  });

  it('waits with --wait until the task finishes, and answers its live state when the wait runs out', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('slow', { queue: 'q', keepResult: 60_000 });
    const docket = on(s.prefix);

    const started = Date.now();
    const waiting = docket('result', 'q', hash, '--wait', '10s', '--json');
    await sleep(300);
    await s.ack((await s.claim({ queue: 'q' }))!, 'finished');
    const answer = await waiting;
    expect(answer.code).toBe(0);
    expect(JSON.parse(answer.stdout).outcome).toMatchObject({ state: 'done', result: 'finished', attempts: 1 });
    expect(Date.now() - started).toBeLessThan(5000);

    // --timeout bounds each Redis call, not the wait.
    const other = await s.put('never claimed', { queue: 'q' });
    const before = Date.now();
    const timedOut = await docket('result', 'q', other.hash, '--wait', '2s', '--timeout', '1000');
    expect(timedOut).toMatchObject({ code: 0, stderr: '' });
    expect(timedOut.stdout).toMatch(/\nstate +pending\n/);
    expect(Date.now() - before).toBeGreaterThanOrEqual(1950);
  });

  it('refuses a bad --wait, and --wait on another command, before connecting', async () => {
    const docket = on(uniquePrefix());
    for (const wait of ['10', '5x', '1.5s', '25d', '']) {
      const r = await docket('result', 'q', 'abc', '--wait', wait);
      expect([wait, r.code]).toEqual([wait, 2]);
      expect(r.stderr).toContain(`bad --wait '${wait}'`);
    }
    expect((await docket('inspect', 'q', 'abc', '--wait', '1s')).stderr).toContain('inspect does not take --wait');
    expect((await cli(['help', 'result'])).stdout).toContain('--wait <span>');
  });
});

describe('reschedule', () => {
  it('moves a task to +1h, an ISO date, epoch ms, or now (which makes it ready)', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('t', { queue: 'q', delay: 60_000 });
    const docket = on(s.prefix);
    const runAt = async () => (await s.get(hash, { queue: 'q' }))!.runAt;

    const before = await serverNow(raw);
    const relative = await docket('reschedule', 'q', hash, '+1h');
    expect(relative.code).toBe(0);
    expect(relative.stdout).toMatch(new RegExp(`^rescheduled ${hash} in queue 'q' to \\S+Z \\(in (59m 59s|1h)\\)\\n$`));
    expect(await runAt()).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(await runAt()).toBeLessThan((await serverNow(raw)) + 3_600_000 + 1);

    expect((await docket('reschedule', 'q', hash, '2031-05-06T07:08:09+02:00')).code).toBe(0);
    expect(await runAt()).toBe(Date.UTC(2031, 4, 6, 5, 8, 9));
    const json = await docket('reschedule', 'q', hash, '1956528000000', '--json');
    expect(JSON.parse(json.stdout)).toEqual({ queue: 'q', hash, runAt: 1956528000000 });
    expect(await runAt()).toBe(1956528000000);

    expect((await docket('reschedule', 'q', hash, 'now')).code).toBe(0);
    expect(await s.stats({ queue: 'q' })).toMatchObject({ ready: 1, delayed: 0 });
  });

  it('exits 1 with the reason for an unknown, active or dead task', async () => {
    const s = await redis.scheduler();
    const { hash: active } = await s.put('a', { queue: 'q' });
    await s.claim({ queue: 'q' });
    const dead = await deadTask(s, 'q', 'd', 'x');
    const docket = on(s.prefix);
    const worker = (await s.get(active, { queue: 'q' }))?.worker;
    expect(worker).toEqual(expect.any(String));
    expect(await docket('reschedule', 'q', 'nope', '+5m')).toMatchObject({ code: 1, stdout: '', stderr: "docket: no task nope in queue 'q'\n" });
    expect(await docket('reschedule', 'q', active, '+5m')).toEqual({
      code: 1,
      stdout: '',
      stderr: `docket: cannot reschedule task ${active} in queue 'q': it is active (leased by ${worker}); its worker finishes or fails it\n`,
    });
    expect(await docket('reschedule', 'q', dead, '+5m')).toEqual({
      code: 1,
      stdout: '',
      stderr: `docket: cannot reschedule task ${dead} in queue 'q': it is dead; use 'docket redrive q ${dead}'\n`,
    });
    expect(await s.stats({ queue: 'q' })).toMatchObject({ active: 1, dead: 1, delayed: 0 });
  });
});

describe('priority', () => {
  it('moves a task to another level; exits 1 with the reason for an unknown, active or dead task', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('p', { queue: 'q', delay: 60_000 });
    const { hash: active } = await s.put('a', { queue: 'q' });
    await s.claim({ queue: 'q' });
    const dead = await deadTask(s, 'q', 'd', 'x');
    const worker = (await s.get(active, { queue: 'q' }))?.worker;
    const docket = on(s.prefix);
    expect(await docket('priority', 'q', hash, '7')).toEqual({ code: 0, stdout: `moved ${hash} in queue 'q' to priority level 7\n`, stderr: '' });
    expect(await s.get(hash, { queue: 'q' })).toMatchObject({ level: 7 });
    expect(await docket('priority', 'q', 'nope', '7')).toEqual({ code: 1, stdout: '', stderr: "docket: no task nope in queue 'q'\n" });
    expect(await docket('priority', 'q', active, '7')).toEqual({
      code: 1,
      stdout: '',
      stderr: `docket: cannot change the priority of task ${active} in queue 'q': it is active (leased by ${worker}); its worker finishes or fails it\n`,
    });
    expect(await docket('priority', 'q', dead, '7')).toEqual({
      code: 1,
      stdout: '',
      stderr: `docket: cannot change the priority of task ${dead} in queue 'q': it is dead; use 'docket redrive q ${dead}'\n`,
    });
  });
});

describe('cancel', () => {
  it('deletes a task; refuses an active one and an unknown hash with exit 1', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('gone', { queue: 'q', delay: 60_000 });
    const { hash: active } = await s.put('busy', { queue: 'q' });
    await s.claim({ queue: 'q' });
    const docket = on(s.prefix);

    expect(await docket('cancel', 'q', hash)).toEqual({ code: 0, stdout: `cancelled ${hash} in queue 'q'\n`, stderr: '' });
    expect(await s.get(hash, { queue: 'q' })).toBeNull();
    expect(await docket('cancel', 'q', hash, '--json')).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `${JSON.stringify({ error: { code: 'ERR_TARGET', message: `no task ${hash} in queue 'q'` } })}\n`,
    });

    const worker = (await s.get(active, { queue: 'q' }))?.worker;
    expect(worker).toEqual(expect.any(String));
    const refused = await docket('cancel', 'q', active);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `docket: cannot cancel task ${active} in queue 'q': it is active (leased by ${worker}); its worker finishes or fails it (or cancel it with --running)\n`,
    });
    expect((await s.get(active, { queue: 'q' }))?.state).toBe('active');

    const { hash: other } = await s.put('json', { queue: 'q' });
    expect(JSON.parse((await docket('cancel', 'q', other, '--json')).stdout)).toEqual({ queue: 'q', hash: other, cancelled: true });
  });
});

describe('redrive', () => {
  it('redrives one dead task, or all of them with --all', async () => {
    const s = await redis.scheduler();
    const [a, b, c, d] = [await deadTask(s, 'q', 'a', 'x'), await deadTask(s, 'q', 'b', 'x'), await deadTask(s, 'q', 'c', 'x'), await deadTask(s, 'q', 'd', 'x')];
    const docket = on(s.prefix);

    expect(await docket('redrive', 'q', a)).toMatchObject({ code: 0, stdout: `redrove ${a} in queue 'q': it is ready\n` });
    expect(await s.get(a, { queue: 'q' })).toMatchObject({ state: 'ready', attempts: 0 });
    expect(await docket('redrive', 'q', a)).toMatchObject({ code: 1, stderr: `docket: cannot redrive task ${a} in queue 'q': it is pending (delayed, ready or waiting), not dead\n` });

    // --json says `redriven`, and `requeued` (its old key) beside it with the same count.
    const one = await docket('redrive', 'q', d, '--json');
    expect(JSON.parse(one.stdout)).toEqual({ queue: 'q', hash: d, redriven: 1, requeued: 1 });
    const all = await docket('redrive', 'q', '--all', '--json');
    expect(JSON.parse(all.stdout)).toEqual({ queue: 'q', redriven: 2, requeued: 2 });
    expect(await s.stats({ queue: 'q' })).toMatchObject({ ready: 4, dead: 0 });
    expect((await s.list('ready', { queue: 'q' })).tasks.map((t) => t.hash).sort()).toEqual([a, b, c, d].sort());
    expect((await docket('redrive', 'q', '--all')).stdout).toBe("redrove 0 dead tasks in queue 'q'\n");
  });

  it("refuses a missing or active task with the script's own reason, and exit 1", async () => {
    const s = await redis.scheduler();
    const docket = on(s.prefix);
    const { hash: active } = await s.put('busy', { queue: 'q' });
    await s.claim({ queue: 'q' });
    const worker = (await s.get(active, { queue: 'q' }))?.worker;
    expect(worker).toEqual(expect.any(String));
    expect(await docket('redrive', 'q', active)).toEqual({
      code: 1,
      stdout: '',
      stderr: `docket: cannot redrive task ${active} in queue 'q': it is active (leased by ${worker}), not dead\n`,
    });
    expect(await docket('redrive', 'q', 'f'.repeat(32))).toEqual({ code: 1, stdout: '', stderr: `docket: no task ${'f'.repeat(32)} in queue 'q'\n` });
    expect((await s.get(active, { queue: 'q' }))?.state).toBe('active');
  });

  it('still runs as requeue-dead, its old name, which its help mentions', async () => {
    const s = await redis.scheduler();
    const a = await deadTask(s, 'q', 'a', 'x');
    expect(await on(s.prefix)('requeue-dead', 'q', a)).toMatchObject({ code: 0, stdout: `redrove ${a} in queue 'q': it is ready\n` });
    const help = await cli(['help', 'requeue-dead']);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: docket redrive <queue> \(<hash> \| --all\)\n/) });
    expect(help.stdout).toContain("'requeue-dead' is its old name");
    expect((await cli(['help'])).stdout).not.toMatch(/\n {2}requeue-dead /);
    expect(await cli(['redrive', 'q'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^docket: redrive: missing <hash>/) });
  });
});

describe('purge-dead', () => {
  it('deletes every dead task of the queue and leaves the others', async () => {
    const s = await redis.scheduler();
    await deadTask(s, 'q', 'a', 'x');
    await deadTask(s, 'q', 'b', 'x');
    await s.put('alive', { queue: 'q' });
    const docket = on(s.prefix);
    expect(await docket('purge-dead', 'q', '--yes')).toEqual({ code: 0, stdout: "purged 2 dead tasks from queue 'q'\n", stderr: '' });
    expect(await s.stats({ queue: 'q' })).toMatchObject({ dead: 0, ready: 1 });
    expect(JSON.parse((await docket('purge-dead', 'q', '-y', '--json')).stdout)).toEqual({ queue: 'q', purged: 0 });
  });

  it('asks first, as clean does: a no deletes nothing, and without a stdin it needs --yes', async () => {
    const s = await redis.scheduler();
    await deadTask(s, 'q', 'a', 'x');
    const asked = (answer: string) => cli(['purge-dead', 'q', '--url', testUrl(), '--prefix', s.prefix], { stdin: Readable.from([answer]) });
    expect(await asked('n\n')).toEqual({ code: 1, stdout: '', stderr: "Delete the 1 dead task of queue 'q'? [y/N] docket: not confirmed: nothing was deleted\n" });
    expect(await on(s.prefix)('purge-dead', 'q')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('pass --yes') });
    expect((await s.stats({ queue: 'q' })).dead).toBe(1);
    expect(await asked('yes\n')).toMatchObject({ code: 0, stdout: "purged 1 dead task from queue 'q'\n" });
    expect((await s.stats({ queue: 'q' })).dead).toBe(0);
  });
});

describe('clean and obliterate', () => {
  /** Runs the CLI with `answer` on stdin, as an operator typing it at the prompt. */
  const answering =
    (prefix: string, answer: string | null) =>
    (...args: string[]) =>
      cli([...args, '--url', testUrl(), '--prefix', prefix], answer === null ? {} : { stdin: Readable.from([answer]) });

  it('cleans dead tasks older than a span after a yes, and nothing after a no', async () => {
    const s = await redis.scheduler();
    await deadTask(s, 'q', 'a', 'x');
    await deadTask(s, 'q', 'b', 'x');
    await sleep(1100);
    await deadTask(s, 'q', 'c', 'x');
    await s.put('alive', { queue: 'q' });
    const no = await answering(s.prefix, 'n\n')('clean', 'q', '--state', 'dead', '--older-than', '1s');
    expect(no).toEqual({ code: 1, stdout: '', stderr: "Delete the 3 dead tasks of queue 'q' older than 1s? [y/N] docket: not confirmed: nothing was deleted\n" });
    expect((await s.stats({ queue: 'q' })).dead).toBe(3);
    const yes = await answering(s.prefix, 'y\n')('clean', 'q', '--state', 'dead', '--older-than', '1s');
    expect(yes).toMatchObject({ code: 0, stdout: "deleted 2 dead tasks from queue 'q'\n" });
    expect(await s.stats({ queue: 'q' })).toMatchObject({ dead: 1, ready: 1 });
    const json = await on(s.prefix)('clean', 'q', '--state', 'ready', '--limit', '5', '--yes', '--json');
    expect(JSON.parse(json.stdout)).toEqual({ queue: 'q', state: 'ready', deleted: 1 });
  });

  it('refuses to clean without --yes when there is no stdin, and bad flags before connecting', async () => {
    const s = await redis.scheduler();
    await deadTask(s, 'q', 'a', 'x');
    const docket = on(s.prefix);
    expect(await docket('clean', 'q', '--state', 'dead')).toMatchObject({ code: 2, stderr: expect.stringContaining('pass --yes') });
    expect(await docket('clean', 'q', '--state', 'active', '--yes')).toMatchObject({ code: 2, stderr: expect.stringContaining("bad --state 'active'") });
    expect(await docket('clean', 'q', '--yes')).toMatchObject({ code: 2, stderr: expect.stringContaining('missing --state') });
    expect(await docket('clean', 'q', '--state', 'dead', '--older-than', '5', '--yes')).toMatchObject({ code: 2, stderr: expect.stringContaining("bad --older-than '5'") });
    expect(await docket('clean', 'q', '--state', 'dead', '--limit', '0', '--yes')).toMatchObject({ code: 2 });
    expect((await s.stats({ queue: 'q' })).dead).toBe(1);
  });

  it('obliterates a queue: refused while a task is leased, done with --force', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.putMany([1, 2, 3].map((data) => ({ data, options: { queue: 'q' } })));
    await s.claim({ queue: 'q' });
    const docket = on(s.prefix);
    const refused = await docket('obliterate', 'q', '--yes');
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('queue q has 1 active task') });
    expect(await answering(s.prefix, '\n')('obliterate', 'q', '--force')).toMatchObject({ code: 1, stderr: expect.stringContaining('not confirmed') });
    expect(await docket('obliterate', 'q', '--force', '--yes')).toEqual({ code: 0, stdout: "obliterated queue 'q'\n", stderr: '' });
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});

describe('pause and resume', () => {
  it('stops and restarts claims, and says when nothing changed', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const docket = on(s.prefix);

    expect(await docket('pause', 'q')).toEqual({ code: 0, stdout: "paused queue 'q'\n", stderr: '' });
    expect((await s.stats({ queue: 'q' })).paused).toBe(true);
    expect(await s.claim({ queue: 'q' })).toBeNull();
    expect(JSON.parse((await docket('pause', 'q', '--json')).stdout)).toEqual({ queue: 'q', paused: true, changed: false });

    expect(await docket('resume', 'q')).toMatchObject({ code: 0, stdout: "resumed queue 'q'\n" });
    expect((await s.stats({ queue: 'q' })).paused).toBe(false);
    expect((await docket('resume', 'q')).stdout).toBe("queue 'q' was already running\n");
    expect((await s.claim({ queue: 'q' }))?.data).toBe('t');
  });

  it('notes a queue no task was ever put on (a typo, or the wrong --prefix)', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'emails' });
    const paused = await on(s.prefix)('pause', 'emials');
    expect(paused.stdout).toBe(`paused queue 'emials'\nnote: no task has been put on queue 'emials' under prefix '${s.prefix}'\n`);
    expect((await s.stats({ queue: 'emails' })).paused).toBe(false);
  });
});

describe('watch', () => {
  it('draws the counts until io.signal aborts, then closes and exits 0', async () => {
    const s = await redis.scheduler();
    await s.putMany([
      { data: 1, options: { queue: 'q' } },
      { data: 2, options: { queue: 'q', delay: 60_000 } },
    ]);
    const stop = new AbortController();
    let frames = 0;
    const started = Date.now();
    const result = { stdout: '', stderr: '' };
    const io: Io = {
      // Stop after the second frame, so a redraw (with its rates) is seen too.
      stdout: { write: (text: string) => ((result.stdout += text), ++frames === 2 && stop.abort()) },
      stderr: { write: (text: string) => (result.stderr += text) },
      env: { REDIS_URL: testUrl() },
      signal: stop.signal,
    };
    const listeners = process.listenerCount('SIGINT');
    const code = await main(['watch', '--interval', '0.2', '--prefix', s.prefix], io);
    expect({ code, stderr: result.stderr, frames }).toEqual({ code: 0, stderr: '', frames: 2 });
    expect(process.listenerCount('SIGINT')).toBe(listeners); // its Ctrl-C handler is gone
    expect(Date.now() - started).toBeLessThan(2000);
    const [first, second] = result.stdout.split(/\n(?=docket watch)/);
    expect(first).toMatch(new RegExp(`^docket watch  prefix '${s.prefix}'  \\S+Z  every 0.2s, Ctrl-C to stop\\n`));
    expect(row(first, 'q').map((c) => c.trim())).toEqual(['q', '1', '1', '0', '0', '0', 'no', '0', '0', '0', '0', '-', '-']);
    expect(
      row(second, 'q')
        .slice(-2)
        .map((c) => c.trim()),
    ).toEqual(['0.0', '0.0']);
  });

  it('prints one JSON line per frame under --json', async () => {
    const s = await redis.scheduler();
    await s.put(1, { queue: 'q' });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 500);
    const result = await cli(['watch', 'q', '--json', '--interval', '0.2', '--url', testUrl(), '--prefix', s.prefix], { signal: stop.signal });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThanOrEqual(4);
    for (const line of lines) expect(line).toEqual({ at: expect.any(Number), queues: [{ queue: 'q', ...(await s.stats({ queue: 'q' })) }] });
  });
});

describe('dashboard', () => {
  it('serves the dashboard on 127.0.0.1 with the live counts, asks for the token, and stops on the signal', async () => {
    const s = await redis.scheduler();
    await s.putMany([
      { data: 1, options: { queue: 'mail' } },
      { data: 2, options: { queue: 'mail', delay: 60_000 } },
    ]);
    const stop = new AbortController();
    let announced!: (url: string) => void;
    const url = new Promise<string>((resolve) => (announced = resolve));
    const io: Io = {
      stdout: { write: (text: string) => announced(JSON.parse(text).url) },
      stderr: { write: () => {} },
      env: { REDIS_URL: testUrl() },
      signal: stop.signal,
    };
    const token = 'a-token-of-twenty-chars';
    const done = main(['dashboard', '--port', '0', '--token', token, '--json', '--prefix', s.prefix], io);
    const address = new URL(await url);
    expect(address.hostname).toBe('127.0.0.1');
    // A token given is not printed, in the URL either (cli-secrets.test.ts).
    expect(address.searchParams.has('token')).toBe(false);
    const page = `${address.origin}/`;
    expect((await fetch(page)).status).toBe(401);
    const overview = await fetch(`${address.origin}/api/overview?queue=mail`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await overview.json()) as { queues: Array<{ name: string; stats: unknown }> };
    expect(body.queues).toEqual([{ name: 'mail', stats: await s.stats({ queue: 'mail' }) }]);
    stop.abort();
    expect(await done).toBe(0);
    await expect(fetch(page)).rejects.toThrow(); // the server is gone
  });

  it('refuses a short token and stray arguments before connecting', async () => {
    const bad = await cli(['dashboard', '--token', 'short', '--url', 'redis://127.0.0.1:1']);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toContain('bad --token');
    expect((await cli(['dashboard', 'extra', '--url', 'redis://127.0.0.1:1'])).code).toBe(2);
    expect((await cli(['dashboard', '--port', '70000', '--url', 'redis://127.0.0.1:1'])).code).toBe(2);
  });
});

describe('dashboard token', () => {
  const token = 'a-token-of-twenty-chars';
  const dir = mkdtempSync(join(tmpdir(), 'docket-token-'));
  let files = 0;
  /** A file holding `text`, as a secret mounted into a container would be. */
  const tokenFile = (text: string) => {
    const file = join(dir, `token-${++files}`);
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  };

  /** Runs `docket dashboard` with `args` and `env`, checks that it wants `token` and takes it, then stops it. */
  async function servesWithToken(args: string[], env: Io['env']): Promise<void> {
    const s = await redis.scheduler();
    await s.put(1, { queue: 'mail' });
    const stop = new AbortController();
    let stderr = '';
    let announced!: (url: string) => void;
    const url = new Promise<string>((resolve) => (announced = resolve));
    const io: Io = {
      stdout: { write: (text: string) => announced(JSON.parse(text).url) },
      stderr: { write: (text: string) => (stderr += text) },
      env: { REDIS_URL: testUrl(), ...env },
      signal: stop.signal,
    };
    const done = main(['dashboard', '--port', '0', '--json', '--prefix', s.prefix, ...args], io);
    const exited = done.then((code) => Promise.reject(new Error(`exited ${code}: ${stderr}`)));
    const address = new URL(await Promise.race([url, exited]));
    expect((await fetch(`${address.origin}/api/overview`)).status).toBe(401);
    expect((await fetch(`${address.origin}/api/overview`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    stop.abort();
    expect(await done).toBe(0);
  }

  it('takes the token from --token', () => servesWithToken(['--token', token], {}));

  it('takes the token from $DOCKET_DASHBOARD_TOKEN, out of the process list', () => servesWithToken([], { DOCKET_DASHBOARD_TOKEN: token }));

  it('takes the token from --token-file, trimmed, before $DOCKET_DASHBOARD_TOKEN', () =>
    servesWithToken(['--token-file', tokenFile(`  ${token}\n`)], { DOCKET_DASHBOARD_TOKEN: 'another-token-of-20-chars' }));

  it('refuses both flags, an unreadable file and a short token from any source, before connecting', async () => {
    const cases: Array<[string[], Io['env'], RegExp]> = [
      [['--token', token, '--token-file', tokenFile(token)], {}, /give --token or --token-file, not both/],
      [['--token-file', join(dir, 'missing')], {}, /cannot read --token-file '.*missing': ENOENT/],
      [['--token-file', tokenFile('short\n')], {}, /bad token in --token-file '.*': expected 16 to 512 visible ASCII characters/],
      [['--token-file', tokenFile(`${token} ${token}`)], {}, /bad token in --token-file/],
      [[], { DOCKET_DASHBOARD_TOKEN: 'short' }, /bad \$DOCKET_DASHBOARD_TOKEN: expected 16 to 512 visible ASCII characters/],
    ];
    for (const [args, env, message] of cases) {
      const result = await cli(['dashboard', ...args, '--url', 'redis://127.0.0.1:1'], { env });
      expect(result).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(message) });
      expect(result.stderr).not.toContain(token); // a refused token is not echoed
    }
  });

  it('names the three ways in its help', async () => {
    const help = (await cli(['help', 'dashboard'])).stdout;
    expect(help).toContain('--token-file <path>');
    expect(help).toContain('$DOCKET_DASHBOARD_TOKEN');
    expect(help).toMatch(/--token <token> [^]*process list/);
  });
});

describe('a bad record', () => {
  it('is listed and inspected with its impossible time marked, and the rest shown', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('odd', { queue: 'q', delay: 60_000 });
    const fine = await s.put('fine', { queue: 'q', delay: 120_000 });
    await setTime(raw, s.prefix, 'q', hash, 'delayed', 1e300);
    const dead = await deadTask(s, 'q', 'gone', 'x');
    await setTime(raw, s.prefix, 'q', dead, 'dead', 1e300);
    const docket = on(s.prefix);

    const delayed = await docket('list', 'q', '--state', 'delayed');
    expect(delayed).toMatchObject({ code: 0, stderr: '' });
    expect(row(delayed.stdout, hash)).toEqual([hash, 'invalid time (1e+300)', '0', '0/5', '-', '-', '-', '"odd"']);
    expect(row(delayed.stdout, fine.hash)[1]).toMatch(/^in (1m 5\ds|2m)$/);
    const died = await docket('list', 'q', '--state', 'dead');
    expect(row(died.stdout, dead)[1]).toBe('invalid time (1e+300)');

    const inspect = await docket('inspect', 'q', hash);
    expect(inspect).toMatchObject({ code: 0, stderr: '' });
    expect(inspect.stdout).toMatch(/\nrun at +invalid time \(1e\+300\)\nexpires +never\n/);
    expect(inspect.stdout).toMatch(/\ndata +"odd"\n$/);
    expect(JSON.parse((await docket('inspect', 'q', hash, '--json')).stdout).task.runAt).toBe(1e300);
    expect(await docket('stats', 'q')).toMatchObject({ code: 0, stderr: '' });
  });

  it('that is not JSON fails inspect and --json in one line, without a stack; the list table marks it', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('t', { queue: 'q' });
    await s.put('fine', { queue: 'q' });
    await writeRecord(raw, s.prefix, 'q', hash, '{"r":\u202e');
    const result = await on(s.prefix)('inspect', 'q', hash);
    expect(result).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(ONE_LINE) });
    expect(result.stderr).toMatch(/^docket: a record in Redis is unreadable: /);
    expect(result.stderr).not.toContain('\u202e');
    // Under --json, the same line as JSON, its code the error's.
    const json = await on(s.prefix)('list', 'q', '--state', 'ready', '--json');
    expect(json).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/^[^\n]+\n$/) });
    expect(json.stderr).not.toContain('\u202e');
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: 'ERR_UNREADABLE_RECORD', message: expect.stringMatching(/^a record in Redis is unreadable: /) } });
    const table = await on(s.prefix)('list', 'q', '--state', 'ready');
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('"fine"');
    expect(table.stdout).toContain('invalid');
    expect(table.stdout).toContain('1-2 of 2 ready tasks');
  });
});

describe('failures at run time', () => {
  it('says in one line that the dashboard port is taken, or that its host cannot be bound', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    const dashboard = (...args: string[]) => cli(['dashboard', ...args, '--url', testUrl(), '--prefix', uniquePrefix()]);
    try {
      expect(await dashboard('--port', String(port))).toEqual({ code: 1, stdout: '', stderr: `docket: cannot listen on 127.0.0.1:${port}: the port is in use\n` });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    // 192.0.2.1 is TEST-NET-1: no machine has it.
    expect(await dashboard('--host', '192.0.2.1', '--port', '0')).toEqual({ code: 1, stdout: '', stderr: 'docket: cannot listen on 192.0.2.1:0: this machine has no such address\n' });
    const nowhere = await dashboard('--host', 'no-such-host.invalid', '--port', '0');
    expect(nowhere).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(ONE_LINE) });
    expect(nowhere.stderr).toMatch(/^docket: cannot listen on no-such-host\.invalid:0: /);
  });

  it('refuses a --host that is no host name or address before connecting', async () => {
    for (const host of ['a b', '', 'x/y', '-h']) {
      const bad = await cli(['dashboard', `--host=${host}`, '--url', 'redis://127.0.0.1:1']);
      expect(bad).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^docket: invalid --host '.*': expected a host name or an IP address\n/) });
    }
  });

  it('answers a --url it cannot use in one line, without a stack', async () => {
    for (const url of ['redis://127.0.0.1:99999', 'redis://[::1', 'redis://no-such-host.invalid:6379']) {
      const result = await cli(['stats', '--url', url, '--timeout', '2000']);
      expect(result.code).toBeGreaterThan(0);
      expect(result.stderr).toMatch(/^docket: (?!unexpected error)[^\n]+\n(Run 'docket help' for usage\.\n)?$/);
    }
  });
});

describe('names', () => {
  it('shows bidi, zero-width and control characters of queue and group names and errors escaped', async () => {
    const s = await redis.scheduler();
    const queue = 'invoices\u202Efdp.exe';
    const shown = 'invoices\\u202Efdp.exe';
    const { hash } = await s.put({ n: 1 }, { queue, group: 'tenant\u200B1', delay: 60_000 });
    const dead = await deadTask(s, queue, 'x', 'boom \u2066here\u2069');
    const docket = on(s.prefix);
    const hidden = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\u2060\ufeff]/;

    const stats = await docket('stats');
    expect(row(stats.stdout, shown)[0]).toBe(shown);
    const ready = await docket('list', queue, '--state', 'delayed');
    expect(row(ready.stdout, hash)[4]).toBe('tenant\\u200B1');
    expect(ready.stdout).toContain(`in queue '${shown}'`);
    const died = await docket('list', queue, '--state', 'dead');
    expect(row(died.stdout, dead)[3]).toBe('Error: boom \\u2066here\\u2069');
    const inspect = await docket('inspect', queue, dead);
    expect(inspect.stdout).toContain(`\nqueue       ${shown}\n`);
    const paused = await docket('pause', queue);
    expect(paused.stdout).toBe(`paused queue '${shown}'\n`);
    const missing = await docket('inspect', queue, 'nope');
    expect(missing.stderr).toBe(`docket: no task nope in queue '${shown}'\n`);
    // JSON escapes them too: the same document, with \u escapes.
    const json = await docket('stats', '--json');
    expect(JSON.parse(json.stdout).queues[0].queue).toBe(queue);
    const stop = new AbortController();
    let drawn = '';
    const watched = await cli(['watch', '--url', testUrl(), '--prefix', s.prefix], { signal: stop.signal, stdout: { write: (text: string) => ((drawn += text), stop.abort()) } });
    expect(watched.code).toBe(0);
    expect(row(drawn, shown)[0]).toBe(shown);
    for (const out of [stats, ready, died, inspect, paused, missing, json, { stdout: drawn, stderr: '' }]) expect(out.stdout + out.stderr).not.toMatch(hidden);
  });
});

describe('usage', () => {
  const bad: Array<[string, string[], RegExp]> = [
    ['no command', [], /missing command/],
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['an unknown flag', ['stats', '--verbose'], /Unknown option '--verbose'\.\n/],
    ['a flag the command does not take', ['stats', '--state', 'dead'], /stats does not take --state/],
    ['a missing argument', ['inspect', 'q'], /inspect: missing <hash>/],
    ['an extra argument', ['pause', 'q', 'r'], /pause: unexpected argument 'r'/],
    ['a missing --state', ['list', 'q'], /list: missing --state/],
    ['a bad --state', ['list', 'q', '--state', 'gone'], /bad --state 'gone': expected one of ready, delayed, waiting, active, dead, done$/m],
    ['a --limit of 0', ['list', 'q', '--state', 'ready', '--limit', '0'], /bad --limit '0': expected a whole number from 1 to 1000/],
    ['a --limit over 1000', ['list', 'q', '--state', 'ready', '--limit', '1001'], /bad --limit '1001'/],
    ['a --limit that is no number', ['list', 'q', '--state', 'ready', '--limit', '5x'], /bad --limit '5x'/],
    ['a negative --offset', ['list', 'q', '--state', 'ready', '--offset=-1'], /bad --offset '-1'/],
    ['a flag without its value', ['list', 'q', '--state', '--limit'], /Option '--state' argument is ambiguous\. Did you forget to specify the option argument for '--state'\?\n/],
    ['a bad <when>', ['reschedule', 'q', 'abc', 'tomorrow'], /bad <when> 'tomorrow'/],
    ['an invalid queue name', ['pause', 'a b'], /invalid queue name 'a b'/],
    ['a queue name with braces', ['purge-dead', '{q}'], /invalid queue name '\{q\}'/],
    ['an empty hash', ['inspect', 'q', ''], /invalid hash '': expected the hash string that put\(\) returned$/m],
    ['a hash over 1024 characters', ['cancel', 'q', 'a'.repeat(1025)], /invalid hash 'a{1025}': must be at most 1024 characters$/m],
    ['redrive with a hash and --all', ['redrive', 'q', 'abc', '--all'], /give a <hash> or --all, not both/],
    ['redrive with neither', ['redrive', 'q'], /missing <hash> \(or --all/],
    ['a bad --timeout', ['stats', '--timeout', '0'], /bad --timeout '0'/],
    ['a bad --interval', ['watch', '--interval', '0'], /bad --interval '0'/],
    ['help for an unknown command', ['help', 'nope'], /unknown command 'nope'/],
  ];

  it.each(bad)('exits 2 on %s, names the problem, and writes nothing to Redis', async (_, args, message) => {
    const raw = await redis.raw();
    const prefix = uniquePrefix();
    const result = await on(prefix)(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^docket: .*\nRun 'docket help' for usage\.\n$/);
    expect(await keysUnder(raw, prefix)).toEqual([]);
  });

  it('exits 2 on a --prefix or --url the scheduler refuses, naming the flag', async () => {
    expect(await cli(['stats', '--url', testUrl(), '--prefix', 'a b'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^docket: invalid --prefix: must have no braces/) });
    expect(await cli(['stats', '--url', 'http://localhost'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^docket: invalid --url: expected a redis:\/\//) });
  });

  it('leaves a task alone when its <when> is refused', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('t', { queue: 'q', delay: 60_000 });
    const runAt = (await s.get(hash, { queue: 'q' }))!.runAt;
    for (const when of ['30', '2030-01-01T00:00:00', '2030-02-30T00:00:00Z', '+5w']) {
      expect((await on(s.prefix)('reschedule', 'q', hash, when)).code).toBe(2);
    }
    expect((await s.get(hash, { queue: 'q' }))!.runAt).toBe(runAt);
  });

  it('prints help for help, --help and -h, overall or for one command', async () => {
    const overview = await cli(['help']);
    expect(overview).toMatchObject({ code: 0, stderr: '' });
    for (const name of ['stats', 'list', 'inspect', 'reschedule', 'cancel', 'redrive', 'purge-dead', 'pause', 'resume', 'watch']) {
      expect(overview.stdout).toMatch(new RegExp(`\\n  ${name} `));
    }
    expect((await cli(['--help'])).stdout).toBe(overview.stdout);
    const list = await cli(['list', '-h']);
    expect(list).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: docket list <queue> --state <state>\n/) });
    expect(list.stdout).toContain('--limit <n>');
    expect((await cli(['help', 'reschedule'])).stdout).toContain('+30s, +5m, +2h or +1d');
  });
});

describe('connection', () => {
  it('takes the URL from REDIS_URL, lets --url win, and accepts global flags before the command', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const fromEnv = await cli(['--prefix', s.prefix, '--json', 'stats'], { env: { REDIS_URL: testUrl() } });
    expect(JSON.parse(fromEnv.stdout).queues[0]).toMatchObject({ queue: 'q', ready: 1 });
    const flagWins = await cli(['--url', testUrl(), 'stats', '--prefix', s.prefix], { env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    expect(flagWins).toMatchObject({ code: 0, stderr: '' });
  });

  it('takes the prefix from DOCKET_PREFIX, lets --prefix win, and counts an empty one as unset', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const queuesOf = async (env: Record<string, string>, ...args: string[]) =>
      (JSON.parse((await cli(['stats', '--json', '--url', testUrl(), ...args], { env })).stdout) as { queues: Array<{ queue: string }> }).queues.map((q) => q.queue);
    expect(await queuesOf({ DOCKET_PREFIX: s.prefix })).toEqual(['q']);
    const other = uniquePrefix();
    expect(await queuesOf({ DOCKET_PREFIX: s.prefix }, '--prefix', other)).toEqual([]);
    // An unknown queue's refusal names the prefix in use.
    const unset = await cli(['stats', 'no-such-queue', '--url', testUrl()], { env: { DOCKET_PREFIX: '' } });
    expect(unset).toMatchObject({ code: 1, stderr: expect.stringContaining("unknown queue 'no-such-queue' under prefix 'docket'") });
    const named = await cli(['stats', '--url', testUrl()], { env: { DOCKET_PREFIX: 'a b' } });
    expect(named).toMatchObject({ code: 2, stderr: expect.stringMatching(/^docket: invalid DOCKET_PREFIX: must have no braces/) });
  });

  it('exits 1 with one clear line when Redis is unreachable', async () => {
    const result = await cli(['stats', '--url', 'redis://127.0.0.1:1']);
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'docket: cannot reach Redis at redis://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1\n' });
  });

  it('gives up on a server that never answers after --timeout, and hides the password', async () => {
    const sockets: Socket[] = [];
    const server = createServer((socket) => void sockets.push(socket)); // accepts, then says nothing
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const started = Date.now();
    try {
      const result = await cli(['stats', '--url', `redis://user:secret@127.0.0.1:${port}`, '--timeout', '300']);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      // After the warning that --url carries a password (cli-secrets.test.ts).
      const [warning, ...rest] = result.stderr.split('\n');
      expect(warning).toMatch(/^docket: warning: --url carries a password/);
      expect(rest.join('\n')).toBe(`docket: cannot reach Redis at redis://user:***@127.0.0.1:${port}: no answer within 300 ms\n`);
      expect(result.stderr).not.toContain('secret');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      // The abandoned client gives up once its socket closes.
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('clean-up', () => {
  const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

  it('closes its Redis connection after success and after failure', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const before = sockets();
    let during = 0;
    const io: Partial<Io> = { stdout: { write: () => (during = sockets()) } };
    expect((await cli(['stats', '--url', testUrl(), '--prefix', s.prefix], io)).code).toBe(0);
    expect(during).toBe(before + 1); // the CLI's own connection, open while it printed
    // The socket handle goes a moment after QUIT is answered.
    await eventually(() => sockets() === before, 1000);
    expect((await cli(['inspect', 'q', 'nope', '--url', testUrl(), '--prefix', s.prefix])).code).toBe(1);
    await eventually(() => sockets() === before, 1000);
  });
});

describe('the bin entry', () => {
  it('runs as a process: exit 2 on bad usage, 1 on a missing task, 0 and JSON for stats', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const root = join(__dirname, '..');
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['-r', 'ts-node/register/transpile-only', join(root, 'lib', 'cli.ts'), ...args], {
        cwd: root,
        env: { ...process.env, REDIS_URL: testUrl() },
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
      );
    // In parallel: each start pays for ts-node.
    const [usage, missing, stats] = await Promise.all([run('list', 'q', '--state', 'gone'), run('inspect', 'q', 'nope', '--prefix', s.prefix), run('stats', '--json', '--prefix', s.prefix)]);
    expect(usage).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/^docket: bad --state 'gone'/) });
    expect(missing).toEqual({ code: 1, stdout: '', stderr: "docket: no task nope in queue 'q'\n" });
    expect(stats).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(stats.stdout)).toEqual({ queues: [{ queue: 'q', ...(await s.stats({ queue: 'q' })) }] });
    // Three ts-node starts at once: seconds each on a loaded 2-core machine.
  }, 60_000);
});
