/**
 * `npm run bench`: docket, BullMQ and bee-queue side by side on one Redis, in one run.
 * Starts its own redis-server (no persistence), pins it and the benchmark children to separate
 * cores when it can, runs each scenario 3 times per library in alternation (A B C A B C ...),
 * then prints the table and writes bench/RESULTS.md and bench/results.json.
 *
 *   npm run bench                       full run (about 10 minutes on 2 cores)
 *   npm run bench -- --quick            1 round, a tenth of the sizes: a smoke test
 *   npm run bench -- --only put,bulk    some scenarios
 *   npm run bench -- --libs docket      some libraries
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from 'redis';
import { startRedis } from '../__tests__/support/redis-server';
import { LIBRARIES } from './libraries';
import { report, SCENARIO_ORDER, type Sample } from './report';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    libs: { type: 'string' },
    rounds: { type: 'string' },
  },
});
const rounds = Number(values.rounds ?? (values.quick ? 1 : 3));
const scenarios = values.only ? values.only.split(',') : SCENARIO_ORDER;
const libraries = values.libs ? values.libs.split(',') : Object.keys(LIBRARIES);
/** Peers are too slow to load a million tasks in reasonable time; the scale target is docket's own. */
const DOCKET_ONLY = new Set(['scaleSmall', 'scaleLarge']);

function canPin(): boolean {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return os.cpus().length >= 2;
  } catch {
    return false;
  }
}

function runChild(library: string, scenario: string, url: string, pin: boolean): Promise<Sample> {
  const node = [process.execPath, '-r', 'ts-node/register/transpile-only', path.join(__dirname, 'child.ts'), library, scenario, url, values.quick ? 'quick' : 'full'];
  // Core 1 for the client, core 0 for Redis: a round trip between two cores is what a real
  // deployment pays, and pinning keeps every run on the same placement (unpinned runs are bimodal).
  const [cmd, ...args] = pin ? ['taskset', '-c', '1', ...node] : node;
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) resolve({ library, scenario, ...JSON.parse(line) });
      else resolve({ library, scenario, error: (err.trim().split('\n')[0] || `exit ${code}`).slice(0, 120), commands: {} });
    });
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  const pin = canPin();
  const redis = await startRedis(['--save', '', '--appendonly', 'no']);
  const stop = () => void redis.stop();
  process.once('SIGINT', () => {
    stop();
    process.exit(130);
  });
  try {
    if (pin) execFileSync('taskset', ['-pc', '0', String(redis.pid)], { stdio: 'ignore' });
    const admin = createClient({ url: redis.url });
    await admin.connect();
    const version = /redis_version:(\S+)/.exec(await admin.info('server'))![1];
    const samples: Sample[] = [];
    for (const scenario of scenarios) {
      const libs = DOCKET_ONLY.has(scenario) ? libraries.filter((l) => l === 'docket') : libraries;
      for (let round = 0; round < rounds; round++) {
        for (const library of libs) {
          await admin.flushAll();
          const sample = await runChild(library, scenario, redis.url, pin);
          samples.push(sample);
          const shown = sample.error ?? JSON.stringify({ ...sample, commands: undefined, library: undefined, scenario: undefined });
          console.error(`${scenario} ${library} #${round + 1}: ${shown}`);
        }
      }
    }
    await admin.quit();
    const { markdown, json } = report(samples, {
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      redis: version,
      pinned: pin,
      rounds,
      quick: values.quick!,
      minutes: (Date.now() - started) / 60_000,
    });
    console.log(markdown);
    writeFileSync(path.join(__dirname, 'RESULTS.md'), markdown);
    writeFileSync(path.join(__dirname, 'results.json'), `${JSON.stringify(json, null, 2)}\n`);
  } finally {
    await redis.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
