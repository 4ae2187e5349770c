/**
 * T1 (issue 3): worker processes crash. 10,000 tasks (30% priority, 20% delayed 0–2 s, 40% in one
 * of 10 fair groups of at most 3 active tasks each, issue 5) go to 4
 * worker processes × concurrency 4, and 20 SIGKILLs hit them at random moments, each worker
 * respawned at once. Must hold: lost 0, unexpected 0, duplicated ≤ the tasks the killed workers
 * held at their kills (≤ 4 × 20), everything done within last kill + lease + 5 s, and the
 * invariants hold during the run and after it.
 */
import { eventually, sleep } from '../support/harness';
import { checkInvariants, layout, parseTask, pending, summary } from './support/checker';
import { useLab, type Lab } from './support/lab';
import { executionCount } from './support/oracle';
import type { ChildWorker, WorkConfig } from './support/workers';

const TASKS = 10_000;
const WORKERS = 4;
const KILLS = 20;
const LEASE_MS = 2000;
/** Short, random handler times, so that kills land mid-handler as well as between tasks. */
const WORK: WorkConfig = { concurrency: 4, leaseMs: LEASE_MS, workMs: [1, 10] };

const lab = useLab();

/** Workers that are up and working; a respawned one joins once it is ready. */
class Crew {
  readonly ready: ChildWorker[] = [];
  private readonly starting: Array<Promise<void>> = [];

  constructor(private readonly lab: Lab) {}

  spawn(): Promise<void> {
    const started = this.lab.pool.spawn({ work: WORK }).then((child) => void this.ready.push(child));
    this.starting.push(started);
    started.catch(() => {}); // reported by settled(), not as an unhandled rejection
    return started;
  }

  /** Takes a random ready worker out of the crew, waiting for one if all are restarting. */
  async pick(): Promise<ChildWorker> {
    while (this.ready.length === 0) await sleep(20);
    return this.ready.splice(Math.floor(Math.random() * this.ready.length), 1)[0];
  }

  settled(): Promise<unknown> {
    return Promise.all(this.starting);
  }
}

/** Most active tasks of each group: kills lapse leases of grouped tasks, whose places must come back. */
const GROUP_LIMIT = 3;

function payloads(): Array<{ data: { label: string }; options: { priority: boolean; delay?: number; group?: string; maxAttempts: number } }> {
  return Array.from({ length: TASKS }, (_, i) => ({
    data: { label: `t1-${i}` },
    // Attempts to spare: a task caught by several kills must not go dead (it would be excused, not run).
    options: {
      priority: Math.random() < 0.3,
      maxAttempts: 20,
      ...(Math.random() < 0.2 ? { delay: Math.random() * 2000 } : {}),
      ...(Math.random() < 0.4 ? { group: `g${i % 10}` } : {}),
    },
  }));
}

/** Tasks the dead worker still held: they are what a kill can at most duplicate. */
async function heldBy(pid: number): Promise<number> {
  const k = layout(lab.prefix, lab.queue);
  const active = await lab.raw.zRange(k.active, 0, -1);
  if (active.length === 0) return 0;
  const fields = await lab.raw.hmGet(k.tasks, active);
  return fields.filter((f) => f !== null && parseTask(f)?.record.w?.includes(`:${pid}:`)).length;
}

/** Kills a random worker each time the executions pass one of KILLS random marks in 3–97%. */
async function killAtRandom(crew: Crew, violations: string[]) {
  const marks = Array.from({ length: KILLS }, () => Math.floor(TASKS * (0.03 + Math.random() * 0.94))).sort((a, b) => a - b);
  let held = 0;
  let lastKillAt = 0;
  let leftAtLastKill = 0;
  for (const [i, mark] of marks.entries()) {
    await eventually(async () => (await executionCount(lab.oracle, lab.run)) >= mark, 60_000);
    const victim = await crew.pick();
    await victim.kill();
    lastKillAt = Date.now();
    held += await heldBy(victim.pid);
    leftAtLastKill = await pending(lab.raw, lab.prefix, lab.queue);
    void crew.spawn();
    if (i % 5 === 4) violations.push(...(await checkInvariants(lab.raw, lab.prefix, lab.queue)));
  }
  return { held, lastKillAt, leftAtLastKill };
}

it('loses nothing when worker processes are SIGKILLed at random moments', async () => {
  const started = Date.now();
  const crew = new Crew(lab);
  await Promise.all(Array.from({ length: WORKERS }, () => crew.spawn()));
  const producer = await lab.scheduler();
  await producer.limitGroups(GROUP_LIMIT);
  const items = payloads();
  for (let i = 0; i < TASKS; i += 500) {
    const chunk = items.slice(i, i + 500);
    await lab.history.track(
      chunk.map((item) => item.data.label),
      producer.putMany(chunk),
    );
  }
  const violations: string[] = [];
  const { held, lastKillAt, leftAtLastKill } = await killAtRandom(crew, violations);
  await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) === 0, LEASE_MS + 30_000);
  const drainMs = Date.now() - lastKillAt;
  await crew.settled();
  violations.push(...(await checkInvariants(lab.raw, lab.prefix, lab.queue)));
  const f = await lab.figures();
  console.log(summary('T1', f, { kills: KILLS, heldAtKills: held, leftAtLastKill, drainAfterLastKillMs: drainMs, wallMs: Date.now() - started }));
  expect(f).toMatchObject({ ok: TASKS, lost: 0, unexpected: 0, untyped: 0, hashConflicts: 0, dead: 0 });
  expect(f.duplicated).toBeLessThanOrEqual(held);
  expect(f.duplicated).toBeLessThanOrEqual(WORK.concurrency * KILLS);
  expect(drainMs).toBeLessThanOrEqual(LEASE_MS + 5000);
  expect(violations).toEqual([]);
});
