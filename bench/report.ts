/**
 * Turns the samples of one run into the results table: medians with their min–max spread, the
 * ratio of docket to the best peer, and whether each target of issue 4 is met.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Measure } from './scenarios';

export interface Sample extends Measure {
  library: string;
  scenario: string;
  error?: string;
  commands: Record<string, number>;
}

interface RunInfo {
  command: string;
  redis: string;
  pinned: boolean;
  rounds: number;
  quick: boolean;
  minutes: number;
}

type Metric = 'rate' | 'p99' | 'bytes';
interface Row {
  scenario: string;
  label: string;
  metric: Metric;
  /** Tasks per sample, to turn command counts into a cost per task. */
  tasks: (quick: boolean) => number;
  target?: string;
  /** Whether the target holds, from docket's and the peers' medians. */
  met?: (docket: number, peer: Record<string, number>) => boolean;
}

const n = (full: number) => (quick: boolean) => (quick ? full / 10 : full);
const ROWS: Row[] = [
  { scenario: 'put', label: 'put, 100 in flight (jobs/s)', metric: 'rate', tasks: n(20_000), target: '≥ 2.0× BullMQ and ≥ 0.9× bee-queue', met: (d, p) => d >= 2 * p.bullmq && d >= 0.9 * p['bee-queue'] },
  { scenario: 'bulk', label: 'bulk put, batches of 1,000 (jobs/s)', metric: 'rate', tasks: n(20_000), target: '≥ 4× BullMQ and ≥ 1.5× bee-queue', met: (d, p) => d >= 4 * p.bullmq && d >= 1.5 * p['bee-queue'] },
  { scenario: 'drain1', label: 'drain c=1 (jobs/s)', metric: 'rate', tasks: n(20_000), target: '≥ 1.5× BullMQ', met: (d, p) => d >= 1.5 * p.bullmq },
  { scenario: 'drain32', label: 'drain c=32 (jobs/s)', metric: 'rate', tasks: n(20_000), target: '≥ 2.5× BullMQ', met: (d, p) => d >= 2.5 * p.bullmq },
  { scenario: 'pickup', label: 'pickup latency p99 (ms)', metric: 'p99', tasks: n(2_000), target: '≤ 1.5 ms', met: (d) => d <= 1.5 },
  { scenario: 'delayed', label: 'delayed lateness p99 (ms)', metric: 'p99', tasks: n(1_000), target: '≤ 5 ms', met: (d) => d <= 5 },
  { scenario: 'scaleSmall', label: 'claim+ack c=32, 1e3 pending (jobs/s)', metric: 'rate', tasks: n(20_000) },
  { scenario: 'scaleLarge', label: 'claim+ack c=32, 1e6 pending (jobs/s)', metric: 'rate', tasks: n(20_000) },
  { scenario: 'memory', label: 'memory per pending task (bytes)', metric: 'bytes', tasks: n(100_000), target: '≤ 0.5× BullMQ', met: (d, p) => d <= 0.5 * p.bullmq },
  { scenario: 'dedup', label: 'put with 50% duplicates (jobs/s)', metric: 'rate', tasks: n(20_000) },
];
export const SCENARIO_ORDER = ROWS.map((r) => r.scenario);
const PEERS = ['bullmq', 'bee-queue'];
const LIBS = ['docket', ...PEERS];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
function fmt(x: number, metric: Metric): string {
  if (metric === 'rate') return x >= 10_000 ? `${(x / 1000).toFixed(1)}k` : x >= 1000 ? `${(x / 1000).toFixed(2)}k` : x.toFixed(0);
  return metric === 'p99' ? x.toFixed(2) : x.toFixed(0);
}

function version(lib: string): string {
  const file = lib === 'docket' ? path.join(__dirname, '..', 'package.json') : path.join(__dirname, '..', 'node_modules', lib, 'package.json');
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

export function report(samples: Sample[], info: RunInfo): { markdown: string; json: unknown } {
  const of = (scenario: string, lib: string) => samples.filter((s) => s.scenario === scenario && s.library === lib);
  const values = (scenario: string, lib: string, metric: Metric) =>
    of(scenario, lib).filter((s) => !s.error && s[metric] !== undefined).map((s) => s[metric]!);
  const medians: Record<string, Record<string, number>> = {};
  const lines: string[] = [];
  lines.push('| Scenario | docket | BullMQ | bee-queue | docket / best peer | target | met |', '|---|---|---|---|---|---|---|');
  for (const row of ROWS) {
    medians[row.scenario] = {};
    const cells = LIBS.map((lib) => {
      const xs = values(row.scenario, lib, row.metric);
      const failed = of(row.scenario, lib).find((s) => s.error);
      if (xs.length === 0) return failed ? `error: ${failed.error}` : '—';
      const m = median(xs);
      medians[row.scenario][lib] = m;
      const spread = xs.length > 1 ? ` (${fmt(Math.min(...xs), row.metric)}–${fmt(Math.max(...xs), row.metric)})` : '';
      const extra = row.metric === 'p99' ? `, p50 ${fmt(median(of(row.scenario, lib).map((s) => s.p50!)), 'p99')}, max ${fmt(median(of(row.scenario, lib).map((s) => s.max!)), 'p99')}` : '';
      const note = of(row.scenario, lib).find((s) => s.note)?.note;
      return `${fmt(m, row.metric)}${spread}${extra}${note ? `; ${note}` : ''}`;
    });
    const d = medians[row.scenario].docket;
    const peers = PEERS.map((p) => medians[row.scenario][p]).filter((x) => x !== undefined);
    const best = peers.length === 0 ? undefined : row.metric === 'rate' ? Math.max(...peers) : Math.min(...peers);
    const ratio = d !== undefined && best !== undefined ? `${(d / best).toFixed(2)}×${row.metric === 'rate' ? '' : ' (lower is better)'}` : '—';
    let met = '—';
    if (row.met && d !== undefined) met = row.met(d, medians[row.scenario]) ? 'yes' : 'no';
    lines.push(`| ${row.label} | ${cells.join(' | ')} | ${ratio} | ${row.target ?? '—'} | ${met} |`);
  }
  const small = medians.scaleSmall?.docket;
  const large = medians.scaleLarge?.docket;
  if (small && large) {
    const slower = small / large;
    lines.push(`| 1e6 vs 1e3 pending | ${slower.toFixed(2)}× slower | — | — | — | ≤ 1.25× slower | ${slower <= 1.25 ? 'yes' : 'no'} |`);
  }

  const cost: string[] = ['| Scenario | script calls / task | BLPOP / task | Redis commands / task | most frequent commands / task |', '|---|---|---|---|---|'];
  for (const row of ROWS) {
    const docket = of(row.scenario, 'docket').filter((s) => !s.error && Object.keys(s.commands).length > 0);
    if (docket.length === 0 || row.scenario === 'memory') continue;
    const tasks = row.tasks(info.quick);
    const per = (name: string) => median(docket.map((s) => (s.commands[name] ?? 0) / tasks));
    const names = [...new Set(docket.flatMap((s) => Object.keys(s.commands)))].filter((c) => !['config|resetstat', 'info'].includes(c));
    const total = names.reduce((acc, c) => acc + per(c), 0);
    const inner = names.filter((c) => !['evalsha', 'eval', 'blpop', 'client|id', 'client|unblock'].includes(c));
    const top = inner.sort((a, b) => per(b) - per(a)).slice(0, 6).map((c) => `${c.toUpperCase()} ${per(c).toFixed(2)}`);
    cost.push(`| ${row.label.replace(/ \(.*\)$/, '')} | ${(per('evalsha') + per('eval')).toFixed(3)} | ${per('blpop').toFixed(3)} | ${total.toFixed(2)} | ${top.join(', ')} |`);
  }

  const cpu = os.cpus();
  const markdown = [
    '# Benchmark results',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Command: \`${info.command}\` (${info.rounds} round${info.rounds > 1 ? 's' : ''} per library, libraries alternating; medians with min–max; ${info.minutes.toFixed(1)} min in all)`,
    `- Machine: ${cpu.length} cores, ${cpu[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; Redis ${info.redis} (\`--save '' --appendonly no\`)`,
    `- Versions: docket ${version('docket')}, BullMQ ${version('bullmq')}, bee-queue ${version('bee-queue')}`,
    `- Placement: ${info.pinned ? 'redis-server pinned to core 0 and each benchmark process to core 1 (`taskset`)' : 'not pinned (no taskset or fewer than 2 cores): expect bimodal figures'}`,
    '- Concurrency: pickup and delayed use one worker at concurrency 1; drains as named. Each library runs in its own process, through bench/adapters/.',
    '',
    ...lines,
    '',
    '## Cost model, as measured (docket)',
    '',
    'From `INFO commandstats` deltas over the timed part. Script calls are round trips; the commands',
    'inside scripts are counted by Redis as well. See docs/performance.md for what they mean.',
    '',
    ...cost,
    '',
  ].join('\n');
  return { markdown, json: { info, medians, samples } };
}
