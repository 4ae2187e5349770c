/**
 * Turns the samples of one run into bench/RESULTS.md and bench/results.json: medians with their
 * min–max spread, docket against the best peer, each target of issue 4 judged from the medians,
 * Redis CPU per task, and the cost model (Redis calls per task).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PEERS, TITLES } from './adapters';
import { costOf, type Cost } from './cost';
import type { Measure } from './protocol';
import type { Sizes } from './scenarios';
import { spread, type Spread } from './stats';
import { CPU_ROWS, CPU_ROWS_AFTER, lowerIsBetter, ROWS, SCALE_TARGET, type Medians, type Metric, type Row } from './targets';

/** One child run, as the parent recorded it. */
export interface Sample {
  library: string;
  scenario: string;
  round: number;
  measure?: Measure;
  /** Redis commands between the marks, less the parent's own INFO calls. */
  calls?: Record<string, number>;
  /** redis-server's CPU time between the marks (main thread, user + sys, µs); absent in results from before it was taken. */
  redisCpuUs?: number;
  error?: string;
}

export interface RunInfo {
  command: string;
  date: Date;
  minutes: number;
  pinned: boolean;
  rounds: number;
  sizes: Sizes;
  redisVersion: string;
}

const LIBS = Object.keys(TITLES);

function version(lib: string): string {
  const file = lib === 'docket' ? path.join(__dirname, '..', 'package.json') : path.join(__dirname, '..', 'node_modules', lib, 'package.json');
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))![1];
  } catch {
    return os.cpus()[0]?.model ?? 'unknown CPU';
  }
}

function fmt(x: number, metric: Metric): string {
  if (metric === 'rate') return x >= 10_000 ? `${(x / 1000).toFixed(1)}k` : x >= 1000 ? `${(x / 1000).toFixed(2)}k` : x.toFixed(0);
  if (metric === 'cpu') return x.toFixed(1);
  return metric === 'p99' ? x.toFixed(2) : x.toFixed(0);
}

const cellSafe = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ');

/** The samples of one scenario and library, and the spread of a measure over the good ones. */
function pick(samples: Sample[], scenario: string, lib: string) {
  const all = samples.filter((s) => s.scenario === scenario && s.library === lib);
  const good = all.filter((s) => s.measure);
  const ofSample = (get: (s: Sample) => number | undefined): Spread | undefined => {
    const xs = good.map(get).filter((x): x is number => x !== undefined && Number.isFinite(x));
    return xs.length ? spread(xs) : undefined;
  };
  const of = (get: (m: Measure) => number | undefined) => ofSample((s) => get(s.measure!));
  return { all, good, errors: all.filter((s) => s.error), of, ofSample };
}

/** Redis CPU µs per task of one sample; undefined for samples stored before it was taken. */
const cpuPerTask = (s: Sample) => (s.redisCpuUs === undefined || !s.measure!.tasks ? undefined : s.redisCpuUs / s.measure!.tasks);

/** A CPU row's cell: the median with its spread, or — (not run, failed, or stored without it). */
function cpuCell(samples: Sample[], row: Row, lib: string): { text: string; median?: number } {
  const cpu = pick(samples, row.scenario, lib).ofSample(cpuPerTask);
  if (!cpu) return { text: '—' };
  return { text: fmt(cpu.median, 'cpu') + (cpu.n > 1 ? ` (${fmt(cpu.min, 'cpu')}–${fmt(cpu.max, 'cpu')})` : ''), median: cpu.median };
}

function valueCell(samples: Sample[], row: Row, lib: string, sizes: Sizes): { text: string; median?: number } {
  if (row.metric === 'cpu') return cpuCell(samples, row, lib);
  const p = pick(samples, row.scenario, lib);
  const failed = p.errors.length ? `error${p.errors.length < p.all.length ? ` in ${p.errors.length} of ${p.all.length}` : ''}: ${p.errors[0].error}` : '';
  const main = p.of((m) => m[row.metric as Exclude<Metric, 'cpu'>]);
  if (!main) return { text: failed || '—' };
  const parts = [fmt(main.median, row.metric) + (main.n > 1 ? ` (${fmt(main.min, row.metric)}–${fmt(main.max, row.metric)})` : '')];
  if (row.metric === 'p99') parts.push(`p50 ${fmt(p.of((m) => m.p50)!.median, 'p99')}, max ${fmt(p.of((m) => m.max)!.median, 'p99')}`);
  // A latency row that also measured a rate (reqres: requests/s) shows it.
  const rate = row.metric === 'rate' ? undefined : p.of((m) => m.rate);
  if (rate) parts.push(`${fmt(rate.median, 'rate')}/s`);
  const distinct = p.of((m) => m.distinct);
  if (distinct) {
    const want = sizes.tasks / 2;
    parts.push(distinct.min === want && distinct.max === want ? `${want.toLocaleString('en-US')} distinct ✓` : `distinct ${distinct.min}–${distinct.max}, want ${want} ✗`);
  }
  const note = p.good.find((s) => s.measure!.note)?.measure!.note;
  for (const extra of [note, failed]) if (extra) parts.push(extra);
  return { text: parts.join('; '), median: main.median };
}

function ratioCell(m: Medians, metric: Metric): string {
  const peers = PEERS.map((p) => m[p]).filter((x): x is number => x !== undefined);
  if (m.docket === undefined || peers.length === 0) return '—';
  const best = lowerIsBetter(metric) ? Math.min(...peers) : Math.max(...peers);
  return `${(m.docket / best).toFixed(2)}×${lowerIsBetter(metric) ? ' (lower is better)' : ''}`;
}

const metCell = (met: boolean | undefined, hasTarget: boolean) => (!hasTarget ? '—' : met === undefined ? 'n/a' : met ? 'yes' : 'no');

interface TableRow {
  scenario: string;
  label: string;
  medians: Medians;
  cells: string[];
  ratio: string;
  target: string;
  met: string;
  /** For a missed target: docket against it, and the performance.md section on the gap. */
  missed?: { versus: string; gap?: string };
}

function tableRow(samples: Sample[], row: Row, sizes: Sizes): TableRow {
  const medians: Medians = {};
  const cells = LIBS.map((lib) => {
    const c = valueCell(samples, row, lib, sizes);
    medians[lib] = c.median;
    return c.text;
  });
  // A latency target may name the median too (delayed: p50 and p99).
  if (row.metric === 'p99') medians['docket.p50'] = pick(samples, row.scenario, 'docket').of((m) => m.p50)?.median;
  const target = row.target ?? '—';
  const met = row.met?.(medians);
  const missed = met === false ? { versus: row.versus?.(medians) ?? '—', gap: row.gap } : undefined;
  // A CPU row reads its scenario's samples; in results.json it goes by a name of its own.
  const scenario = row.metric === 'cpu' ? `${row.scenario}RedisCpu` : row.scenario;
  return { scenario, label: row.label(sizes), medians, cells, ratio: ratioCell(medians, row.metric), target, met: metCell(met, !!row.met), missed };
}

function tableRows(samples: Sample[], sizes: Sizes): TableRow[] {
  const rows: TableRow[] = [];
  for (const row of ROWS) {
    rows.push(tableRow(samples, row, sizes));
    if (row.scenario === CPU_ROWS_AFTER) rows.push(...CPU_ROWS.map((r) => tableRow(samples, r, sizes)));
    if (row.scenario === 'scaleLarge') rows.push(scaleRow(rows, sizes));
  }
  return rows;
}

/** The ratio row: claim+ack with the small queue over the large one, per library. */
function scaleRow(rows: TableRow[], sizes: Sizes): TableRow {
  const small = rows.find((r) => r.scenario === 'scaleSmall')?.medians ?? {};
  const large = rows.find((r) => r.scenario === 'scaleLarge')?.medians ?? {};
  const medians: Medians = {};
  for (const lib of LIBS) if (small[lib] !== undefined && large[lib] !== undefined) medians[lib] = small[lib]! / large[lib]!;
  const cells = LIBS.map((lib) => (medians[lib] === undefined ? '—' : `${medians[lib]!.toFixed(2)}×`));
  const met = medians.docket === undefined ? undefined : medians.docket <= SCALE_TARGET.limit;
  const missed = met === false ? { versus: `${medians.docket!.toFixed(2)}× slower` } : undefined;
  return { scenario: 'scaleRatio', label: SCALE_TARGET.label(sizes), medians, cells, ratio: '—', target: SCALE_TARGET.target, met: metCell(met, true), missed };
}

function resultsTable(rows: TableRow[]): string[] {
  const head = ['Scenario', ...LIBS.map((l) => TITLES[l]), 'docket / best peer', 'target', 'met'];
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${[r.label, ...r.cells, r.ratio, r.target, r.met].map(cellSafe).join(' | ')} |`)];
}

/** Every missed target, measured against what it names, with where the gap is explained. */
function missedTargets(rows: TableRow[]): string[] {
  const missed = rows.filter((r) => r.missed);
  if (missed.length === 0) return ['Every target with a verdict was met.'];
  return [
    'For each target this run missed: docket measured against what the target names, and the section of [docs/performance.md](../docs/performance.md) with the profile that explains the gap and what would close it.',
    '',
    ...missed.map((r) => {
      const where = r.missed!.gap ? `[why, and what would close it](../docs/performance.md#${r.missed!.gap})` : '[docs/performance.md](../docs/performance.md)';
      return `- ${r.label}: ${r.missed!.versus}; target ${r.target}. ${where}`;
    }),
  ];
}

function costs(samples: Sample[], lib: string): Array<{ row: Row; cost: Cost }> {
  return ROWS.flatMap((row) => {
    const good = pick(samples, row.scenario, lib).good.filter((s) => s.calls);
    const cost = costOf(good.map((s) => ({ tasks: s.measure!.tasks, calls: s.calls! })));
    return cost ? [{ row, cost }] : [];
  });
}

const list = (xs: Array<[string, number]>, n: number) =>
  xs
    .slice(0, n)
    .map(([c, v]) => `${c} ${v.toFixed(3)}`)
    .join(', ');

function costTable(samples: Sample[], sizes: Sizes): string[] {
  const lines = ['| Scenario | script calls / task (FCALL, EVALSHA) | top-level calls / task | commands / task | top commands inside scripts / task |', '|---|---|---|---|---|'];
  for (const { row, cost } of costs(samples, 'docket')) {
    const top = `${cost.topLevel.toFixed(3)} (${list(cost.topLevelBy, 4)})`;
    lines.push(`| ${row.label(sizes).replace(/ \(.*\)$/, '')} | ${cost.scripts.toFixed(3)} | ${top} | ${cost.commands.toFixed(2)} | ${list(cost.inner, 6)} |`);
  }
  return lines;
}

/** Script calls and commands per task for every library, for comparison with docket's. */
function peerCostTable(samples: Sample[], sizes: Sizes): string[] {
  const lines = [`| Scenario | ${LIBS.map((l) => TITLES[l]).join(' | ')} |`, `|---|${LIBS.map(() => '---').join('|')}|`];
  for (const row of ROWS) {
    const cells = LIBS.map((lib) => {
      const c = costs(samples, lib).find((x) => x.row === row)?.cost;
      return c ? `${c.scripts.toFixed(2)} / ${c.commands.toFixed(1)}` : '—';
    });
    lines.push(`| ${row.label(sizes).replace(/ \(.*\)$/, '')} | ${cells.join(' | ')} |`);
  }
  return lines;
}

function header(info: RunInfo): string[] {
  const cores = os.cpus().length;
  return [
    '# Benchmark results',
    '',
    `- Date: ${info.date.toISOString()} (${info.minutes.toFixed(1)} min in all)`,
    `- Command: \`${info.command}\``,
    `- Runs: ${info.rounds} per library and scenario, libraries alternating (A B C D A B C D …); each cell is the median, with min–max in brackets`,
    `- Machine: ${cores} cores, ${cpuModel()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`,
    `- Node ${process.version}; Redis ${info.redisVersion} (\`--save '' --appendonly no\`, default \`hz 10\`)`,
    `- Versions: docket ${version('docket')} (lib/ as in the working tree), BullMQ ${version('bullmq')} (ioredis ${version('ioredis')}), bee-queue ${version('bee-queue')}, node-redis ${version('redis')} (docket, minimal)`,
    `- Pinning: ${info.pinned ? 'yes: redis-server on core 0, each benchmark process on core 1 (`taskset`)' : 'no (no taskset or fewer than 2 cores): expect bimodal figures'}`,
    '- Concurrency: drains and scale at the concurrency named; pickup and delayed use one worker at concurrency 1 for every library (all four keep up with 500 tasks/s that way); request/response keeps 32 requests in flight against a worker at concurrency 32 in the same process.',
    '- Each library and scenario runs in a process of its own, through `bench/adapters/`. BullMQ with `removeOnComplete`, bee-queue with `removeOnSuccess` (docket with its done history off, `keep({ done: { count: 0 } })`: it deletes finished tasks), bee-queue with events off and `activateDelayedJobs` on its worker.',
  ];
}

export function report(samples: Sample[], info: RunInfo): { markdown: string; json: unknown } {
  const rows = tableRows(samples, info.sizes);
  const markdown = [
    ...header(info),
    '',
    '## Results',
    '',
    ...resultsTable(rows),
    '',
    '"docket / best peer" divides docket by the better of BullMQ and bee-queue: the higher rate, or the lower latency, memory or Redis CPU (lower is better there). "minimal" (bench/adapters/minimal.ts, one script call per put, claim and ack, polling when idle) is a floor reference, not a peer. Scale runs are docket and minimal only, request/response leaves bee-queue out (—: not run). Rates are jobs per second; drains are timed until the library reports no task left, the scale runs until the last measured handler; latencies are p99 with p50 and max (medians over runs). Redis CPU per task is redis-server\'s CPU time (main thread, user + sys, from `INFO cpu` read with the INFO snapshots around the timed part) over the tasks of that part, in µs: what the library asks of the server, its own client work aside (—: not run, or a stored run from before it was taken).',
    '',
    '### Targets missed',
    '',
    ...missedTargets(rows),
    '',
    '### Reading the latency rows',
    '',
    '- bee-queue raises due delayed jobs in batches: its worker arms one timer for the last job within `delayedDebounce` (default 1,000 ms) of the earliest one, so its delayed jobs run up to about a second late by design. The defaults are kept, as for every library.',
    "- BullMQ waits for a delayed job in a blocking `BZPOPMIN` whose timeout is the job's run-at; Redis checks blocking timeouts only `hz` (10) times a second, which fits its lateness of up to about 100 ms.",
    "- docket and minimal take a delayed task's run-at from the Redis clock when the put arrives, BullMQ and bee-queue from the client's clock when `add`/`save` is called. The delayed scenario therefore puts one task at a time, so no put waits in a client queue.",
    "- Request/response: docket puts with `keepResult` and waits with `result(hash, { wait })`; BullMQ adds with `removeOnComplete: { age: 60 }` (with `true` the job can be gone before `waitUntilFinished` checks it) and waits with `waitUntilFinished` on one `QueueEvents`; minimal publishes the result from its ack script. The cell gives requests per second after the latencies. bee-queue is left out (—): a job's `succeeded` event can arrive before its `save()` resolves, and bee-queue then drops it (bee-queue#78, #189), so some requests never hear back (see bench/README.md).",
    '- The p99 of a few thousand samples is the 20th-worst one: a single garbage collection or a busy neighbour on the shared machine shows up in it. The spread over runs says how far to trust it.',
    '',
    '## Cost model (docket)',
    '',
    'Per task, from `INFO commandstats` deltas the parent took just before and after each timed part (its own INFO calls taken off), medians over runs. commandstats also counts the commands scripts run; a command named in `lua/*.lua` or `lua/include/*.lua` counts as inside a script, anything else (FCALL, EVALSHA, BLPOP, CLIENT, ...) as a top-level call. The drain rows include the few `stats` calls that watch for the queue to empty.',
    '',
    ...costTable(samples, info.sizes),
    '',
    '### Script calls / commands per task, every library',
    '',
    ...peerCostTable(samples, info.sizes),
    '',
  ].join('\n');
  const json = { ...info, sizes: info.sizes, table: rows, samples };
  return { markdown, json };
}
