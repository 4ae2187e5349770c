/**
 * `npm run bench:groups`: claim throughput of fair groups. 20,000 tasks spread over 1, 100 and
 * 10,000 groups (and, for reference, the same tasks without a group) are drained by one worker at
 * concurrency 32, 3 runs each, alternating. The claim cost must not depend on the number of
 * groups. Then group limits (issue 5): a limit of 2 per group on 100 groups (room for 200 at
 * once, so it never binds: what the limit costs) and on 10 groups (room for 20 of the worker's 32:
 * claims park tasks and finished ones bring them back). Writes bench/GROUPS.md.
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
interface Config {
  label: string;
  groups: number;
  /** Most active tasks per group, if limited. */
  limit?: number;
}

const CONFIGS: Config[] = [
  { label: 'no group', groups: 0 },
  { label: '1 group', groups: 1 },
  { label: '100 groups', groups: 100 },
  { label: '10,000 groups', groups: 10_000 },
  { label: '100 groups, limit 2 each (never binds)', groups: 100, limit: 2 },
  { label: '10 groups', groups: 10 },
  { label: '10 groups, limit 2 each (20 at once)', groups: 10, limit: 2 },
];

async function drainRate(url: string, { groups, limit }: Config, run: number, index: number): Promise<number> {
  const s = await createScheduler({ url, prefix: `g${run}x${index}`, onWarning: () => {} });
  try {
    if (limit !== undefined) await s.limitGroups(limit);
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
      const worker = s.work(
        async () => {
          if (++done === TASKS) resolve();
        },
        { concurrency: 32 },
      );
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
    const rates = CONFIGS.map((): number[] => []);
    for (let run = 1; run <= RUNS; run++) {
      for (const [index, config] of CONFIGS.entries()) {
        const rate = await drainRate(redis.url, config, run, index);
        rates[index].push(rate);
        console.error(`${config.label} #${run}: ${rate.toFixed(0)}/s`);
      }
    }
    const base = median(rates[1]);
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
      ...CONFIGS.map(({ label }, index) => {
        const rate = median(rates[index]);
        return `| ${label} | ${(rate / 1000).toFixed(1)}k | ${(rate / base).toFixed(2)}× |`;
      }),
      '',
      'A claim takes grouped tasks with one ZPOPMIN (O(log N) in the grouped tasks waiting) and reads nothing per group, so the number of groups should not change the rate; "no group" is the same load through the plain ready list, for reference.',
      '',
      'With group limits a claim also reads the group\'s limit and active count per grouped task, and counts each lease and ack in `gactive`: "100 groups, limit 2 each" never reaches its limit (a round has one task per group), so set against "100 groups" it shows what the bookkeeping costs. "10 groups, limit 2 each" lets 20 of the worker\'s 32 slots run: claims park the tasks of groups at their limit and each finished task brings one back, so set against "10 groups" it shows the cost of parking together with the lower concurrency the limit imposes.',
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
