/**
 * What this machine allows, measured: the floors under the rows of `npm run bench`, with no queue
 * at all. Each probe runs against the benchmark's own Redis (pinned to core 0, this process to core
 * 1, as in run.ts), three times, and LIMITS.md gets the medians:
 *
 * - round trip: a sequential PING from node-redis, the least any call costs;
 * - wake: an RPUSH on one connection until a BLPOP blocked on another returns, sent at 500/s as
 *   the pickup row's puts are: the least a put can take to reach an idle worker;
 * - timer: how late a setTimeout fires, spread over 1–3 s as the delayed row's run-ats are, plus
 *   a round trip after it: the least a delayed task can be late when a timer wakes its worker;
 * - no-op script: EVALSHA of `return 1`, 100 in flight, and in batches of 1,000: the most script
 *   calls per second node-redis and Redis manage here, whatever the script does;
 * - two writes: a script that does an HSET and an RPUSH (the least a put can store), the same ways;
 * - memory: 100,000 tasks stored as docket stores a pending one (a `tasks` field `<created ms>`, a
 *   newline and the payload, and the id in `ready`), with 32-character hex ids and with 16-byte
 *   binary ones, no events: the bytes per task of the layout itself, by `used_memory`;
 * - docket's scripts, cut short: Redis's time per call (INFO commandstats) of put.lua and claim.lua
 *   returning at once, after building `K`, after defining their functions, and whole (on an empty
 *   queue, one task per put): what a call costs before it does any work.
 *
 *   npm run bench:limits          # about a minute; writes bench/LIMITS.md
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';
import { claim } from '../lib/ops/claim';
import { put } from '../lib/ops/put';
import { compile } from '../lib/redis/scripts';
import { canPin, startBenchRedis } from './redis';
import { percentiles, type Percentiles } from './stats';

type Client = ReturnType<typeof createClient>;

const RUNS = 3;
const SAMPLES = 2000;
const PER_SECOND = 500;
const OPS = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Latency = Percentiles;
const summary = percentiles;

async function roundTrip(c: Client): Promise<Latency> {
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await c.ping();
    samples.push(performance.now() - t);
  }
  return summary(samples);
}

async function wake(c: Client, blocker: Client): Promise<Latency> {
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < SAMPLES; i++) {
    const wait = started + (i * 1000) / PER_SECOND - performance.now();
    if (wait > 0) await sleep(wait);
    const popped = blocker.sendCommand(['BLPOP', 'limits:wake', '5']);
    await sleep(0); // the BLPOP is blocked by now, or reaches Redis before the push
    const t = performance.now();
    void c.sendCommand(['RPUSH', 'limits:wake', 'x']);
    await popped;
    samples.push(performance.now() - t);
  }
  return summary(samples);
}

async function timer(c: Client): Promise<Latency> {
  const samples: number[] = [];
  const starts = performance.now();
  await Promise.all(
    Array.from({ length: 1000 }, async () => {
      const delay = 1000 + Math.round(Math.random() * 2000);
      const due = starts + delay;
      await sleep(delay);
      await c.ping();
      samples.push(performance.now() - due);
    }),
  );
  return summary(samples);
}

/** Calls per second of `args`, `inFlight` at a time. */
async function rate(c: Client, args: (i: number) => string[], inFlight: number): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < OPS) await c.sendCommand(args(next++));
    }),
  );
  return OPS / ((performance.now() - t) / 1000);
}

/** Items per second of `args`, in batches of 1,000 sent together (one pipelined burst each). */
async function bulk(c: Client, args: (i: number) => string[]): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < OPS; i += 1000) await Promise.all(Array.from({ length: 1000 }, (_, j) => c.sendCommand(args(i + j))));
  return OPS / ((performance.now() - t) / 1000);
}

/** Bytes of used_memory per task for 100,000 tasks stored in docket's layout, ids made by `id`. */
async function layoutBytes(c: Client, id: (i: number) => Buffer): Promise<number> {
  const N = 100_000;
  await c.flushAll();
  const used = async () => Number(/used_memory:(\d+)/.exec(await c.info('memory'))![1]);
  const before = await used();
  for (let i = 0; i < N; i += 1000) {
    const pipeline: Array<Promise<unknown>> = [];
    for (let j = i; j < i + 1000; j++) {
      // The bench's payload and a record as a pending task's: its creation time alone, a newline, the payload.
      const field = `${1795000000000 + j}\n` + JSON.stringify({ to: `user-${j}@example.com`, template: 'welcome', n: j });
      pipeline.push(c.sendCommand(['HSET', '{q}:tasks', id(j), field]), c.sendCommand(['RPUSH', '{q}:ready', id(j)]));
    }
    await Promise.all(pipeline);
  }
  return ((await used()) - before) / N;
}

/** Redis's µs per call (INFO commandstats) of 3,000 sequential EVALSHAs of `sha` with `args()`. */
async function perCall(c: Client, sha: string, args: () => string[]): Promise<number> {
  await c.flushAll();
  await c.configResetStat();
  for (let i = 0; i < 3000; i++) await c.sendCommand(['EVALSHA', sha, ...args()]);
  const line = (await c.info('commandstats')).split('\n').find((l) => l.startsWith('cmdstat_evalsha'))!;
  return Number(/usec_per_call=([\d.]+)/.exec(line)![1]);
}

/** Redis's µs per call of `name` cut at each stage (see the header), sequential calls. */
async function stages(c: Client, name: 'put' | 'claim'): Promise<Record<string, number>> {
  const op = name === 'put' ? put : claim;
  const whole = compile(op);
  const cuts: Record<string, string> = {
    'returning at once': whole.replace(/\nlocal K = \{/, '\ndo return 1 end\nlocal K = {'),
    'after K': whole.replace(/\nlocal K = \{[^\n]*\n/, (k) => `${k}do return 1 end\n`),
    'after its definitions': whole.replace('\nlocal now = nowMs()\n', '\ndo return 1 end\nlocal now = nowMs()\n'),
    whole,
  };
  const keys = op.keys.map((suffix) => `limits:{q}:${suffix}`);
  let n = 0;
  // Through the ops' own codecs, so the probe's ARGV is the one docket sends.
  const putArgv = () =>
    put.encode({ maxAttempts: 5, schedule: '', events: 1000, items: [{ id: (n++).toString(16).padStart(32, '0'), payload: '{"body":"x","n":1}', options: '', after: '' }] });
  const claimArgv = () =>
    claim.encode({ count: 1, lease: 30_000, token: 'token', worker: 'worker', deadMaxCount: 1000, deadMaxAge: 3_600_000, remember: 20_000, events: 1000, keep: 0, acks: [] });
  const argv = () => (name === 'put' ? putArgv() : claimArgv()).map(String);
  const out: Record<string, number> = {};
  for (const [stage, source] of Object.entries(cuts)) {
    if (stage !== 'whole' && source === whole) throw new Error(`${name}.lua: could not cut it ${stage}`);
    out[stage] = await perCall(c, await c.scriptLoad(source), () => [String(keys.length), ...keys, ...argv()]);
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const medianOf = (xs: Latency[]): Latency => ({ p50: median(xs.map((x) => x.p50)), p99: median(xs.map((x) => x.p99)), max: median(xs.map((x) => x.max)) });
const ms = (l: Latency) => `p50 ${l.p50.toFixed(2)}, p99 ${l.p99.toFixed(2)}, max ${l.max.toFixed(2)} ms`;
const perSecond = (n: number) => `${(n / 1000).toFixed(1)}k/s`;

async function main(): Promise<void> {
  const pin = canPin();
  // This process on core 1, Redis on core 0, as run.ts places its children.
  if (pin) execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  const redis = await startBenchRedis(pin);
  const c = createClient({ url: redis.url });
  const blocker = c.duplicate();
  await Promise.all([c.connect(), blocker.connect()]);
  const noop = await c.scriptLoad('return 1');
  const store = await c.scriptLoad("redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) redis.call('RPUSH', KEYS[2], ARGV[1]) return 1");
  const payload = JSON.stringify({ n: 0, body: 'x'.repeat(40) });
  const id = (i: number) => (i * 2654435761).toString(16).padStart(32, '0');
  const rows: Record<string, { latency?: Latency[]; rate?: number[] }> = {};
  const cost: Record<string, number[]> = {};
  const add = (name: string, value: Latency | number) => {
    rows[name] ??= {};
    if (typeof value === 'number') (rows[name].rate ??= []).push(value);
    else (rows[name].latency ??= []).push(value);
  };
  try {
    for (let run = 0; run < RUNS; run++) {
      await redis.flush();
      add('round trip (sequential PING)', await roundTrip(c));
      add('wake: RPUSH to a blocked BLPOP, 500/s', await wake(c, blocker));
      add('timer over 1–3 s, then a round trip', await timer(c));
      add('no-op script, 100 in flight', await rate(c, () => ['EVALSHA', noop, '0'], 100));
      add('no-op script, batches of 1,000', await bulk(c, () => ['EVALSHA', noop, '0']));
      await redis.flush();
      add('HSET + RPUSH script, 100 in flight', await rate(c, (i) => ['EVALSHA', store, '2', '{q}:tasks', '{q}:ready', id(i), payload], 100));
      await redis.flush();
      add('HSET + RPUSH script, batches of 1,000', await bulk(c, (i) => ['EVALSHA', store, '2', '{q}:tasks', '{q}:ready', id(i), payload]));
      add('memory per task, docket layout, hex ids', await layoutBytes(c, (i) => Buffer.from((i * 2654435761 + 1).toString(16).padStart(32, '0'))));
      add('memory per task, docket layout, 16-byte binary ids', await layoutBytes(c, (i) => Buffer.from((i * 2654435761 + 1).toString(16).padStart(32, '0'), 'hex')));
      (cost['no-op script, no keys'] ??= []).push(await perCall(c, noop, () => ['0']));
      for (const name of ['put', 'claim'] as const) {
        for (const [stage, us] of Object.entries(await stages(c, name))) (cost[`${name}.lua ${stage}`] ??= []).push(us);
      }
    }
  } finally {
    await Promise.all([c.disconnect(), blocker.disconnect()]);
    await redis.stop();
  }
  const lines = [
    '# What this machine allows',
    '',
    `- Date: ${new Date().toISOString()}; command: \`npm run bench:limits\` (bench/limits.ts)`,
    `- Machine: ${os.cpus().length} cores, ${os.cpus()[0].model.trim()}; Node ${process.version}; Redis ${redis.version}`,
    `- Pinning: ${pin ? 'yes: redis-server on core 0, this process on core 1' : 'no (taskset missing or one core)'}`,
    `- ${RUNS} runs of each probe; each cell is the median over runs (of the p50, the p99 and the max alike)`,
    '',
    'No queue at all: the floors under the rows of `npm run bench` on this machine. See the header of',
    'bench/limits.ts for what each probe does and which row it bounds.',
    '',
    '| Probe | Result |',
    '|---|---|',
    ...Object.entries(rows).map(
      ([name, r]) => `| ${name} | ${r.latency ? ms(medianOf(r.latency)) : name.startsWith('memory') ? `${median(r.rate!).toFixed(0)} B` : perSecond(median(r.rate!))} |`,
    ),
    '',
    "Redis's time per call of docket's own scripts (`INFO commandstats`, 3,000 sequential calls), cut",
    'short at each stage: what a call costs before it does any work. `put` puts one task with the',
    'default options, `claim` asks for one task of an empty queue with no acks.',
    '',
    '| Script (cut) | µs per call |',
    '|---|---|',
    ...Object.entries(cost).map(([name, us]) => `| ${name} | ${median(us).toFixed(1)} |`),
    '',
  ];
  const text = lines.join('\n');
  writeFileSync(path.join(__dirname, 'LIMITS.md'), text);
  process.stdout.write(text);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
