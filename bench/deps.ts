/**
 * `npm run bench:deps`: what a dependency costs. Each scenario runs twice on the same tasks, with
 * and without `after`, driven the same way (putMany, then claimMany of up to 1,000 and pipelined
 * acks until every task is done); the difference, divided by the number of dependency edges, is
 * the cost of one edge: round trips (top-level Redis calls), Redis commands in all (those scripts
 * run included), and Redis time (the `usec` of the top-level calls in INFO commandstats, which
 * for EVALSHA includes everything the script ran). Then a chain across two queues run by workers
 * (per hop, absolute), the put cost of a task with 0, 1 and 10 refs, and the longest single calls.
 * Writes bench/DEPS.md.
 *
 *   npm run bench:deps              full run (5 runs each, medians; about a minute)
 *   npm run bench:deps -- --quick   1 run, 1,000 only: a smoke test
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createClient } from 'redis';
import { createScheduler, type PutOptions, type Scheduler, type Task } from '../lib';
import { startRedis } from '../__tests__/support/redis-server';
import { costOf } from './cost';
import { canPin } from './redis';
import { median } from './stats';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const SIZES = values.quick ? [1_000] : [1_000, 10_000];
const RUNS = values.quick ? 1 : 5;
const HOPS = values.quick ? 50 : 200;
const PUTS = values.quick ? 200 : 1_000;
const BATCH = 1_000;

/** INFO commandstats at one moment: calls and usec per command. */
type Stats = Record<string, { calls: number; usec: number }>;
/** What a measured part cost: per command, calls and usec; and its wall time. */
interface Part {
  delta: Stats;
  ms: number;
}

let admin: ReturnType<typeof createClient>;
async function snapshot(): Promise<Stats> {
  const out: Stats = {};
  for (const m of (await admin.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)) out[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
  return out;
}
/** Runs `fn` between two snapshots. */
async function measure(fn: () => Promise<void>): Promise<Part> {
  const before = await snapshot();
  const started = performance.now();
  await fn();
  const ms = performance.now() - started;
  const after = await snapshot();
  const delta: Stats = {};
  for (const [name, s] of Object.entries(after)) {
    const b = before[name] ?? { calls: 0, usec: 0 };
    const calls = s.calls - b.calls;
    // INFO is the snapshots' own (of this part and of parts measured inside it).
    if (name === 'info') continue;
    if (calls > 0) delta[name] = { calls, usec: s.usec - b.usec };
  }
  return { delta, ms };
}

interface Cost {
  /** Top-level calls (round trips' worth of work the client asked for). */
  trips: number;
  /** Every command, those scripts ran included. */
  commands: number;
  /** usec of the top-level calls. */
  usec: number;
  ms: number;
  by: Array<[string, number]>;
}
/** A part's cost divided by `per`, split as bench/cost.ts splits it (top level vs inside scripts). */
function costPer(part: Part, per: number): Cost {
  const calls = Object.fromEntries(Object.entries(part.delta).map(([k, v]) => [k, v.calls]));
  const c = costOf([{ tasks: per, calls }])!;
  const top = new Set(c.topLevelBy.map(([name]) => name.toLowerCase().replace(' ', '|')));
  const usec = Object.entries(part.delta)
    .filter(([k]) => top.has(k))
    .reduce((acc, [, v]) => acc + v.usec, 0);
  return { trips: c.topLevel, commands: c.commands, usec: usec / per, ms: part.ms / per, by: c.topLevelBy };
}
const minus = (a: Cost, b: Cost): Cost => ({ trips: a.trips - b.trips, commands: a.commands - b.commands, usec: a.usec - b.usec, ms: a.ms - b.ms, by: [] });
const med = (xs: Cost[]): Cost => ({
  trips: median(xs.map((x) => x.trips)),
  commands: median(xs.map((x) => x.commands)),
  usec: median(xs.map((x) => x.usec)),
  ms: median(xs.map((x) => x.ms)),
  by: xs[0].by,
});

let prefixes = 0;
async function open(url: string): Promise<Scheduler> {
  return createScheduler({ url, prefix: `d${++prefixes}`, onWarning: () => {}, deadMaxCount: 1_000_000 });
}

/** Leases and acks every task of `queue` until `total` are done, BATCH a claim, acks pipelined. */
async function drain(s: Scheduler, queue: string, total: number): Promise<Task[]> {
  const done: Task[] = [];
  while (done.length < total) {
    const tasks = await s.claimMany(BATCH, { queue });
    if (tasks.length === 0) throw new Error(`${queue}: ${total - done.length} tasks never became ready`);
    await Promise.all(tasks.map((t) => s.ack(t)));
    done.push(...tasks);
  }
  return done;
}

const items = (n: number, tag: string, options: PutOptions = {}) => Array.from({ length: n }, (_, i) => ({ data: { [tag]: i }, options }));

/** One task after n others (deps), or the same n + 1 tasks with none (base); then all run. */
async function fanIn(url: string, n: number, deps: boolean): Promise<{ all: Part; put: Part; last: Part | null }> {
  const s = await open(url);
  try {
    let put!: Part;
    let last: Part | null = null;
    const all = await measure(async () => {
      const parents = (await s.putMany(items(n, 'p'))).map((r) => r.hash);
      put = await measure(async () => void (await s.put('child', deps ? { after: parents } : {})));
      // The parents (the child, with deps, is waiting), then the child.
      await drain(s, 'default', deps ? n : n + 1);
      if (deps) {
        const child = await s.claimMany(BATCH);
        if (child.length !== 1) throw new Error(`fan-in: ${child.length} ready after the last ack`);
        last = await measure(async () => void (await s.ack(child[0])));
      }
    });
    return { all, put, last };
  } finally {
    await s.close();
  }
}

/** n tasks after one (deps), or the same n + 1 tasks with none (base); then all run. */
async function fanOut(url: string, n: number, deps: boolean): Promise<{ all: Part; release: Part; ms: number }> {
  const s = await open(url);
  try {
    let release!: Part;
    let ms = 0;
    const all = await measure(async () => {
      const parent = await s.put('parent');
      await s.putMany(items(n, 'c', deps ? { after: [parent.hash] } : {}));
      const [first] = await s.claimMany(deps ? BATCH : 1);
      // The ack that finds n tasks waiting on the one: the longest single call.
      release = await measure(async () => void (await s.ack(first)));
      const started = performance.now();
      await drain(s, 'default', n);
      ms = performance.now() - started;
    });
    return { all, release, ms };
  } finally {
    await s.close();
  }
}

/** A chain of `hops` + 1 tasks, each after the one before, alternating between two queues (or in one), run by a worker per queue. */
async function chain(url: string, hops: number, queues: string[]): Promise<{ put: Part; run: Part }> {
  const s = await open(url);
  try {
    // Both queues exist before a put names one.
    for (const queue of queues) await s.put('seed', { queue });
    for (const queue of queues) await drain(s, queue, 1);
    let previous: { queue: string; hash: string } | null = null;
    const put = await measure(async () => {
      for (let i = 0; i <= hops; i++) {
        const queue = queues[i % queues.length];
        const r = await s.put({ i }, { queue, after: previous ? [previous] : [] });
        previous = { queue, hash: r.hash };
      }
    });
    let ran = 0;
    let finished!: () => void;
    const all = new Promise<void>((resolve) => (finished = resolve));
    const run = await measure(async () => {
      const workers = queues.map((queue) =>
        s.work(
          async () => {
            if (++ran === hops + 1) setImmediate(finished);
          },
          { queue },
        ),
      );
      await all;
      await Promise.all(workers.map((w) => w.close()));
    });
    return { put, run };
  } finally {
    await s.close();
  }
}

/** PUTS single puts, each after `refs` tasks of its own queue or of another; and the same as one putMany. */
async function puts(url: string, refs: number, other: boolean): Promise<{ single: Part; many: Part }> {
  const s = await open(url);
  try {
    const up = other ? 'up' : 'default';
    const parents = (await s.putMany(items(refs, 'p', { queue: up }))).map((r) => ({ queue: up, hash: r.hash }));
    // Known to this process (no registry look-up in the timed part).
    await s.put('known');
    const after = refs === 0 ? undefined : other ? parents : parents.map((p) => p.hash);
    const single = await measure(async () => {
      for (let i = 0; i < PUTS; i++) await s.put({ single: i }, { after });
    });
    const many = await measure(async () => void (await s.putMany(items(PUTS, 'many', { after }))));
    return { single, many };
  } finally {
    await s.close();
  }
}

const f = (x: number, digits = 1) => x.toFixed(digits);
/** A fan scenario's row: the edge's cost (with less base, per edge), and the base's own per task. */
const row = (label: string, n: number, edge: Cost, base: Cost, ms: [number, number]) =>
  `| ${label} | ${f(edge.trips * n, 0)} | ${f(edge.trips, 3)} | ${f(edge.commands)} | ${f(edge.usec)} | ${f(base.usec)} | ${f(ms[0], 0)} / ${f(ms[1], 0)} |`;
const usecOf = (p: Part) =>
  Object.entries(p.delta)
    .filter(([k]) => k === 'evalsha' || k === 'eval' || k === 'fcall' || k === 'fcall_ro')
    .reduce((acc, [, v]) => acc + v.usec, 0);

async function main(): Promise<void> {
  const began = Date.now();
  const redis = await startRedis();
  const pinned = canPin();
  if (pinned) {
    // Redis on core 0, this process on core 1: a round trip crosses cores, as between machines.
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(redis.pid)], { stdio: 'ignore' });
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  }
  admin = createClient({ url: redis.url });
  admin.on('error', () => {});
  await admin.connect();
  const version = /redis_version:(\S+)/.exec(await admin.info('server'))![1];
  const lines: string[] = [];
  try {
    const edges: string[] = [];
    const longest: string[] = [];
    const timings: string[] = [];
    for (const n of SIZES) {
      const inCosts: Cost[] = [],
        outCosts: Cost[] = [],
        inBase: Cost[] = [],
        outBase: Cost[] = [],
        inPut: number[] = [],
        inLast: number[] = [],
        outAck: number[] = [],
        outMs: number[] = [],
        outBaseMs: number[] = [];
      const wall: Record<'inWith' | 'inBase' | 'outWith' | 'outBase', number[]> = { inWith: [], inBase: [], outWith: [], outBase: [] };
      for (let run = 1; run <= RUNS; run++) {
        await admin.flushAll();
        const a = await fanIn(redis.url, n, true);
        const b = await fanIn(redis.url, n, false);
        inCosts.push(minus(costPer(a.all, n), costPer(b.all, n)));
        inBase.push(costPer(b.all, n + 1));
        wall.inWith.push(a.all.ms);
        wall.inBase.push(b.all.ms);
        inPut.push(usecOf(a.put));
        inLast.push(usecOf(a.last!));
        const c = await fanOut(redis.url, n, true);
        const d = await fanOut(redis.url, n, false);
        outCosts.push(minus(costPer(c.all, n), costPer(d.all, n)));
        outBase.push(costPer(d.all, n + 1));
        wall.outWith.push(c.all.ms);
        wall.outBase.push(d.all.ms);
        outAck.push(usecOf(c.release));
        outMs.push(c.ms);
        outBaseMs.push(d.ms);
        console.error(`fan-in/out ${n} #${run}: ${f(a.all.ms, 0)} / ${f(b.all.ms, 0)} ms, ${f(c.all.ms, 0)} / ${f(d.all.ms, 0)} ms`);
      }
      const size = n.toLocaleString('en-US');
      edges.push(
        row(`fan-in: 1 after ${size}`, n, med(inCosts), med(inBase), [median(wall.inWith), median(wall.inBase)]),
        row(`fan-out: ${size} after 1`, n, med(outCosts), med(outBase), [median(wall.outWith), median(wall.outBase)]),
      );
      longest.push(
        `| put of a task after ${size} (one queue) | ${f(median(inPut) / 1000, 2)} |`,
        `| ack of a task ${size} wait on (releases the first 100) | ${f(median(outAck) / 1000, 2)} |`,
      );
      timings.push(`| ${size} | ${f(median(outMs), 0)} | ${f(median(outBaseMs), 0)} |`);
    }

    const chains: string[] = [];
    for (const [label, queues] of [
      ['two queues', ['ping', 'pong']],
      ['one queue', ['solo']],
    ] as const) {
      const parts: Array<{ put: Cost; run: Cost }> = [];
      for (let run = 1; run <= RUNS; run++) {
        await admin.flushAll();
        const r = await chain(redis.url, HOPS, [...queues]);
        parts.push({ put: costPer(r.put, HOPS + 1), run: costPer(r.run, HOPS + 1) });
        console.error(`chain ${label} #${run}: ${f(r.run.ms / (HOPS + 1), 2)} ms a hop`);
      }
      const put = med(parts.map((p) => p.put));
      const run = med(parts.map((p) => p.run));
      chains.push(
        `| ${label} | ${f(put.trips, 2)} | ${f(put.usec)} | ${f(run.trips, 2)} | ${f(run.usec)} | ${f(run.ms, 2)} | ${run.by
          .slice(0, 5)
          .map(([c, x]) => `${c} ${f(x, 2)}`)
          .join(', ')} |`,
      );
    }

    const putRows: string[] = [];
    for (const [refs, other] of [
      [0, false],
      [1, false],
      [10, false],
      [1, true],
      [10, true],
    ] as const) {
      const parts: Array<{ single: Cost; many: Cost }> = [];
      for (let run = 1; run <= RUNS; run++) {
        await admin.flushAll();
        const r = await puts(redis.url, refs, other);
        parts.push({ single: costPer(r.single, PUTS), many: costPer(r.many, PUTS) });
      }
      const single = med(parts.map((p) => p.single));
      const many = med(parts.map((p) => p.many));
      const where = refs === 0 ? '' : other ? ' of another queue' : ' of its queue';
      putRows.push(
        `| ${refs} ref${refs === 1 ? '' : 's'}${where} | ${f(single.trips, 2)} | ${f(single.commands)} | ${f(single.usec)} | ${f(single.ms * 1000, 0)} | ${f(many.commands)} | ${f(many.usec)} |`,
      );
      console.error(`put with ${refs}${where}: ${f(single.trips, 2)} trips, ${f(single.usec)} µs`);
    }

    lines.push(
      '# Dependencies benchmark',
      '',
      `- Date: ${new Date(began).toISOString()} (${((Date.now() - began) / 60_000).toFixed(1)} min)`,
      `- Command: \`npm run bench:deps${values.quick ? ' -- --quick' : ''}\``,
      `- Machine: ${cpus().length} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}; Node ${process.version}; redis-server ${version}${pinned ? ', pinned to core 0 and the benchmark to core 1' : ', unpinned'}`,
      `- ${RUNS} run(s) of each, medians.`,
      '',
      '## Method',
      '',
      'Redis counts every command in INFO commandstats, with the time it took (`usec`). A snapshot before and after each measured part gives its calls and time per command. As in bench/cost.ts, a command is "top level" (a round trip\'s worth of work the client asked for: EVALSHA, BLPOP, CLIENT UNBLOCK, ...) unless docket\'s Lua scripts name it; every command counts in "commands", those the scripts ran included. "Redis µs" is the `usec` of the top-level calls: an EVALSHA\'s includes everything its script ran. Client-side work (JSON, hashing) is not in it.',
      '',
      "**Per edge.** Each fan scenario runs twice on a fresh prefix: with `after`, and the same tasks put with none. Both are driven the same way: `putMany` of the many, a `put` of the one, then `claimMany(1000)` and pipelined single acks until every task is done. The difference, divided by the number of edges (N), is what one dependency edge costs. It includes the extra claims the release takes: a task others wait on releases 100 of them in its own ack, and each claim after releases the next 100. A putMany's registry SADD goes out from every chunk that finishes before the first one's answer, so top-level counts vary by one or two between runs, which can make a difference of 0 come out as -1.",
      '',
      '## Cost per dependency edge',
      '',
      '| Scenario | extra round trips, in all | round trips per edge | Redis commands per edge | Redis µs per edge | base: Redis µs per task | wall ms, with / base |',
      '|---|---|---|---|---|---|---|',
      ...edges,
      '',
      "\"Base: Redis µs per task\" is what a task costs without dependencies in the same drive (its share of putMany, claims and its own ack), for scale. Fan-in: the child's put registers the N dependents in one script call, and each parent's ack finds its one dependent and settles it in the same call: no round trip of its own. Fan-out: the parent's ack lists its N dependents and queues one step each in `settle`, applying the first 100; each claim after applies the next 100, so a claim of 1,000 finds about 100 ready, not 1,000: the extra round trips are those extra claims.",
      '',
      '## Longest single calls',
      '',
      '| Call | Redis ms |',
      '|---|---|',
      ...longest,
      '',
      "## Fan-out: from the parent's ack to the last of N acked",
      '',
      'Claims of up to 1,000 and pipelined acks, one client; the base is the same N tasks put without `after` (all ready from the start).',
      '',
      '| N | with `after` (ms) | base (ms) |',
      '|---|---|---|',
      ...timings,
      '',
      `## A chain of ${HOPS} hops, run by workers`,
      '',
      `${HOPS + 1} tasks, each put \`after\` the one before, alternating between two queues (every hop crosses queues: its release is carried by the client, outbox.lua then apply.lua) or all in one (the ack's own call releases the next, and the same call leases it). One worker per queue, concurrency 1. Per hop, absolute (no base): the put phase (one put each, in sequence) and the run phase (workers started to last task run, workers closed).`,
      '',
      '| Chain | put: round trips | put: Redis µs | run: round trips | run: Redis µs | run: wall ms | run: top-level calls per hop |',
      '|---|---|---|---|---|---|---|',
      ...chains,
      '',
      "Across queues a hop's EVALSHAs are (seen with MONITOR): the finishing worker's claim that acks, whose reply says steps are due; its carry (outbox.lua, apply.lua in the other queue, outbox.lua to say they are carried); and the other worker's claim, woken by apply.lua's wake token (a claim's next-due leaves out outbox steps due now: the worker that got the reply carries them). The idle wait that follows is the CLIENT ID and BLPOP. In one queue the ack's own call releases the next task and leases it: one call a hop.",
      '',
      '## Put cost by number of refs',
      '',
      `${PUTS.toLocaleString('en-US')} single puts in sequence (each its own script call), then the same number as one putMany (250 a script call), per task. Refs name tasks that are pending (not finished): each is registered. A ref to another queue is carried at once by the put: outbox.lua takes the steps, apply.lua registers them there, outbox.lua says they are done.`,
      '',
      '| Put after | single: round trips | single: Redis commands | single: Redis µs | single: wall µs | putMany: Redis commands | putMany: Redis µs |',
      '|---|---|---|---|---|---|---|',
      ...putRows,
      '',
    );
    const markdown = lines.join('\n');
    console.log(markdown);
    writeFileSync(path.join(__dirname, 'DEPS.md'), markdown);
  } finally {
    await admin.disconnect().catch(() => {});
    await redis.stop();
  }
}

main().catch((err) => {
  console.error(err?.stack ?? err);
  process.exit(1);
});
