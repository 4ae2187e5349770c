/**
 * The benchmark orchestrator (`npm run bench`): starts a throwaway Redis, runs every scenario for
 * every library in a child process of its own, libraries alternating round by round, takes the
 * INFO snapshots each child asks for around its timed part, and writes bench/RESULTS.md and
 * bench/results.json.
 *
 *   npm run bench                              full run (about 10 minutes on 2 cores)
 *   npm run bench -- --quick                   1 run each at a tenth of the sizes: a smoke test
 *   npm run bench -- --only put,drain32        some scenarios
 *   npm run bench -- --libs docket,minimal     some libraries
 *   npm run bench -- --runs 5                  runs per library and scenario (default 3)
 *   npm run bench -- --report                  rewrite RESULTS.md from results.json, running nothing
 *   npm run bench -- --only scaleSmall,scaleLarge --large 10000000
 *                                              the scale rows with 1e7 pending (about 2.2 GB of Redis)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LIBRARIES, PEERS } from './adapters';
import { killCurrentChild, runChild } from './spawn';
import { canPin, startBenchRedis, type BenchRedis } from './redis';
import { report, type Sample } from './report';
import { FULL, QUICK } from './scenarios';
import { LEFT_OUT, OWN_ONLY, SCENARIO_ORDER } from './targets';

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      libs: { type: 'string' },
      runs: { type: 'string' },
      report: { type: 'boolean', default: false },
      large: { type: 'string' },
    },
  });
  const scenarios = values.only ? values.only.split(',') : SCENARIO_ORDER;
  const libraries = values.libs ? values.libs.split(',') : Object.keys(LIBRARIES);
  for (const s of scenarios) if (!SCENARIO_ORDER.includes(s)) throw new Error(`unknown scenario ${s}; known: ${SCENARIO_ORDER.join(', ')}`);
  for (const l of libraries) if (!LIBRARIES[l]) throw new Error(`unknown library ${l}; known: ${Object.keys(LIBRARIES).join(', ')}`);
  const runs = Number(values.runs ?? (values.quick ? 1 : 3));
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a whole number ≥ 1, not ${values.runs}`);
  const base = values.quick ? QUICK : FULL;
  const large = Number(values.large ?? base.scaleLarge);
  if (!Number.isInteger(large) || large < 2 * base.scaleSmall) throw new Error(`--large wants a whole number of pending tasks, not ${values.large}`);
  return { quick: values.quick!, scenarios, libraries, runs, report: values.report!, sizes: { ...base, scaleLarge: large } };
}

async function runAll(redis: BenchRedis, opts: ReturnType<typeof options>, pin: boolean): Promise<Sample[]> {
  const { sizes } = opts;
  const samples: Sample[] = [];
  for (const scenario of opts.scenarios) {
    const libs = opts.libraries.filter((l) => !(OWN_ONLY.has(scenario) && PEERS.includes(l)) && !LEFT_OUT[scenario]?.includes(l));
    for (let round = 1; round <= opts.runs; round++) {
      for (const library of libs) {
        await redis.flush();
        const started = Date.now();
        const sample = await runChild(redis, { type: 'run', library, scenario, url: redis.url, sizes }, pin, round);
        samples.push(sample);
        const m = sample.measure;
        const shown =
          sample.error ??
          [
            m?.rate && `${m.rate.toFixed(0)}/s`,
            m?.p99 !== undefined && `p50 ${m.p50!.toFixed(2)} p99 ${m.p99.toFixed(2)} max ${m.max!.toFixed(2)} ms`,
            m?.bytes && `${m.bytes.toFixed(0)} B`,
            m?.distinct && `${m.distinct} distinct`,
            m?.note,
          ]
            .filter(Boolean)
            .join(', ');
        console.error(`${scenario} ${library} #${round}: ${shown} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      }
    }
  }
  return samples;
}

const RESULTS_MD = path.join(__dirname, 'RESULTS.md');
const RESULTS_JSON = path.join(__dirname, 'results.json');

/** `--report`: the last run's samples and settings, rendered again (after a change to the report). */
function rerender(): void {
  const saved = JSON.parse(readFileSync(RESULTS_JSON, 'utf8'));
  // A results.json from before a scenario existed lacks its size: its row (all —) takes the default.
  const { markdown } = report(saved.samples, { ...saved, sizes: { ...FULL, ...saved.sizes }, date: new Date(saved.date) });
  writeFileSync(RESULTS_MD, markdown);
  console.log(markdown);
}

async function main(): Promise<void> {
  const opts = options();
  if (opts.report) return rerender();
  const started = Date.now();
  const pin = canPin();
  const redis = await startBenchRedis(pin);
  // Interrupted: stop the running child and Redis, each by its pid, before going.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killCurrentChild();
      void redis.stop().finally(() => process.exit(130));
    });
  }
  try {
    console.error(`redis-server ${redis.version} pid ${redis.pid} at ${redis.url}; pinning ${pin ? 'on' : 'off'}`);
    const samples = await runAll(redis, opts, pin);
    const { markdown, json } = report(samples, {
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      date: new Date(started),
      minutes: (Date.now() - started) / 60_000,
      pinned: pin,
      rounds: opts.runs,
      sizes: opts.sizes,
      redisVersion: redis.version,
    });
    console.log(markdown);
    writeFileSync(RESULTS_MD, markdown);
    writeFileSync(RESULTS_JSON, `${JSON.stringify(json, null, 2)}\n`);
  } finally {
    await redis.stop();
  }
}

main().catch((err) => {
  console.error(err?.message ?? err);
  process.exit(1);
});
