/**
 * T20 (issue 31): a schedule stored in Redis survives its workers' crashes. A 1-second schedule()
 * runs for 5 minutes on 3 worker processes, which are SIGKILLed at random every few seconds and
 * respawned at once; about every 45 s all of them are killed together and respawned 4 s later,
 * so there are moments with no worker up. No process declares the schedule: only the work()
 * loops put its occurrences. Must hold: every occurrence due while a worker was up ran, each
 * occurrence is one task (never put twice), and it ran once, but for a re-delivery after a kill
 * that caught its handler; nothing but whole seconds ran.
 */
import { sleep } from '../support/harness';
import { useLab } from './support/lab';
import type { Execution } from './support/oracle';
import type { ChildWorker, WorkConfig } from './support/workers';

const RUN_MS = 5 * 60_000;
const WORKERS = 3;
const EVERY_MS = 1000;
const LEASE_MS = 2000;
/** How often all workers are killed at once, and for how long none is up. */
const BLACKOUT_EVERY_MS = 45_000;
const BLACKOUT_MS = 4000;
const WORK: WorkConfig = { concurrency: 2, leaseMs: LEASE_MS, workMs: [1, 20] };

const lab = useLab();

/** The spans (Redis clock) during which at least one worker was up. */
class Uptime {
  readonly spans: Array<[number, number]> = [];
  private live = 0;
  private since = 0;

  async up(): Promise<void> {
    if (this.live++ === 0) this.since = await now();
  }

  async down(): Promise<void> {
    if (--this.live === 0) this.spans.push([this.since, await now()]);
  }

  async end(): Promise<void> {
    if (this.live > 0) this.spans.push([this.since, await now()]);
  }
}

async function now(): Promise<number> {
  const [seconds, micros] = await lab.raw.sendCommand<[string, string]>(['TIME']);
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** The worker processes: each up once it said ready, out of the crew while it restarts. */
class Crew {
  readonly ready: ChildWorker[] = [];
  readonly kills: number[] = [];

  constructor(private readonly uptime: Uptime) {}

  async spawn(): Promise<void> {
    const child = await lab.pool.spawn({ work: WORK });
    this.ready.push(child);
    await this.uptime.up();
  }

  async kill(child: ChildWorker): Promise<void> {
    this.ready.splice(this.ready.indexOf(child), 1);
    await child.kill();
    this.kills.push(child.pid);
    await this.uptime.down();
  }
}

/** Random kills, each worker respawned at once, and now and then a blackout of every worker. */
async function churn(crew: Crew): Promise<void> {
  const until = Date.now() + RUN_MS;
  let blackout = Date.now() + BLACKOUT_EVERY_MS;
  const respawns: Array<Promise<void>> = [];
  while (Date.now() < until) {
    await sleep(2000 + Math.random() * 4000);
    if (Date.now() >= blackout && crew.ready.length === WORKERS) {
      blackout = Date.now() + BLACKOUT_EVERY_MS;
      await Promise.all([...crew.ready].map((c) => crew.kill(c)));
      await sleep(BLACKOUT_MS);
      await Promise.all(Array.from({ length: WORKERS }, () => crew.spawn()));
    } else if (crew.ready.length > 0) {
      await crew.kill(crew.ready[Math.floor(Math.random() * crew.ready.length)]);
      respawns.push(crew.spawn());
    }
  }
  await Promise.all(respawns);
}

/** The occurrences (whole seconds) that fell due inside a span when a worker was up. */
function dueWhileUp(spans: Array<[number, number]>): number[] {
  const due: number[] = [];
  for (const [from, to] of spans) for (let at = Math.ceil(from / EVERY_MS) * EVERY_MS; at <= to; at += EVERY_MS) due.push(at);
  return due;
}

it('runs every occurrence due while a worker was up exactly once, through SIGKILLs and blackouts', async () => {
  const started = Date.now();
  const uptime = new Uptime();
  const crew = new Crew(uptime);
  const s = await lab.scheduler();
  await s.schedule('tick', EVERY_MS, { label: 'tick' }, { maxAttempts: 20 });
  await Promise.all(Array.from({ length: WORKERS }, () => crew.spawn()));
  await churn(crew);
  // The last occurrences put ahead fall due and run; then the workers go, and the schedule with them.
  const stoppedAt = await now();
  await sleep(LEASE_MS + 4000);
  await uptime.end();
  await s.unschedule('tick');
  await Promise.all(crew.ready.map((c) => c.close()));
  const execs: Execution[] = await lab.executions();
  // By task first: a re-delivery's run-at may have moved, so the first run of a task names its occurrence.
  const byTask = new Map<string, Execution[]>();
  for (const e of execs) byTask.set(e.hash, [...(byTask.get(e.hash) ?? []), e]);
  const byOccurrence = new Map<number, string[]>();
  for (const [hash, runs] of byTask) byOccurrence.set(runs[0].runAt, [...(byOccurrence.get(runs[0].runAt) ?? []), hash]);
  const due = dueWhileUp(uptime.spans).filter((at) => at <= stoppedAt);
  const missing = due.filter((at) => !byOccurrence.has(at));
  const offBeat = [...byOccurrence.keys()].filter((at) => at % EVERY_MS !== 0);
  // One task per occurrence, put once: an occurrence's task is named by its key, so a second put
  // after the first run shows as a run of the same task at attempt 1 again.
  const twoTasks = [...byOccurrence].filter(([, hashes]) => hashes.length > 1).map(([at]) => at);
  const putTwice = [...byTask].filter(([, runs]) => runs.slice(1).some((e) => e.attempt === 1)).map(([, runs]) => runs[0].runAt);
  // A second run of the same task is a re-delivery: only a killed worker's unfinished handler excuses it.
  const killed = new Set(crew.kills);
  const rerun = [...byTask].filter(([, runs]) => runs.length > 1 && !runs.slice(0, -1).every((e) => killed.has(e.pid))).map(([hash]) => hash);
  console.log(
    `T20: ${byOccurrence.size} occurrences ran, ${due.length} due while a worker was up, ${crew.kills.length} kills, ` +
      `${uptime.spans.length} up spans, ${execs.length - byTask.size} re-deliveries, wall ${Math.round((Date.now() - started) / 1000)} s`,
  );
  expect({ missing, offBeat, twoTasks, putTwice, rerun }).toEqual({ missing: [], offBeat: [], twoTasks: [], putTwice: [], rerun: [] });
}, 420_000);
