/**
 * `npm run bench:groups`: claim throughput of fair groups. 20,000 tasks spread over 1, 100 and
 * 10,000 groups (and, for reference, the same tasks without a group) are drained by one worker at
 * concurrency 32, 3 runs each, alternating. The claim cost must not depend on the number of
 * groups. Writes bench/GROUPS.md.
 *
 *   npm run bench:groups              full run
 *   npm run bench:groups -- --quick   1 run at a tenth of the size: a smoke test
 */
import { cpus } from 'node:os';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createScheduler } from '../lib';
import { startRedis } from '../__tests__/support/redis-server';
import { median } from './stats';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const TASKS = values.quick ? 2_000 : 20_000;
const RUNS = values.quick ? 1 : 3;
const CONFIGS: Array<{ label: string; groups: number }> = [
  { label: 'no group', groups: 0 },
  { label: '1 group', groups: 1 },
  { label: '100 groups', groups: 100 },
  { label: '10,000 groups', groups: 10_000 },
];

async function drainRate(url: string, groups: number, run: number): Promise<number> {
  const s = await createScheduler({ url, prefix: `g${run}x${groups}`, onWarning: () => {} });
  try {
    for (let from = 0; from < TASKS; from += 1000) {
      await s.putMany(
        Array.from({ length: Math.min(1000, TASKS - from) }, (_, i) => {
          const n = from + i;
          return { data: { n }, options: groups ? { group: `customer-${n % groups}` } : undefined };
        }),
      );
    }
    let done = 0;
    const started = performance.now();
    await new Promise<void>((resolve) => {
      const worker = s.work(async () => {
        if (++done === TASKS) resolve();
      }, { concurrency: 32 });
      void worker;
    });
    return TASKS / ((performance.now() - started) / 1000);
  } finally {
    await s.close();
  }
}

async function main(): Promise<void> {
  const began = Date.now();
  const redis = await startRedis();
  try {
    const rates = new Map<number, number[]>();
    for (let run = 1; run <= RUNS; run++) {
      for (const { label, groups } of CONFIGS) {
        const rate = await drainRate(redis.url, groups, run);
        rates.set(groups, [...(rates.get(groups) ?? []), rate]);
        console.error(`${label} #${run}: ${rate.toFixed(0)}/s`);
      }
    }
    const base = median(rates.get(1)!);
    const markdown = [
      '# Fair groups benchmark',
      '',
      `- Date: ${new Date(began).toISOString()} (${((Date.now() - began) / 60_000).toFixed(1)} min)`,
      `- Command: \`npm run bench:groups${values.quick ? ' -- --quick' : ''}\``,
      `- Machine: ${cpus().length} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}; Node ${process.version}; one redis-server, unpinned`,
      `- ${TASKS.toLocaleString('en-US')} tasks spread evenly over the groups, drained by one worker at concurrency 32 (claim and ack); ${RUNS} run(s) each, alternating; medians.`,
      '',
      '| Tasks put with | claim+ack (jobs/s) | vs 1 group |',
      '|---|---|---|',
      ...CONFIGS.map(({ label, groups }) => {
        const rate = median(rates.get(groups)!);
        return `| ${label} | ${(rate / 1000).toFixed(1)}k | ${(rate / base).toFixed(2)}× |`;
      }),
      '',
      'A claim takes grouped tasks with one ZPOPMIN (O(log N) in the grouped tasks waiting) and reads nothing per group, so the number of groups should not change the rate; "no group" is the same load through the plain ready list, for reference.',
      '',
    ].join('\n');
    console.log(markdown);
    writeFileSync(path.join(__dirname, 'GROUPS.md'), markdown);
  } finally {
    await redis.stop();
  }
}

main().catch((err) => {
  console.error(err?.stack ?? err);
  process.exit(1);
});
