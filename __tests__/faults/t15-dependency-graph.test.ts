/**
 * T15 (issue 15): a dependency graph of 1,000 tasks over 3 queues (each waits on 0–3 of the 60
 * tasks put before its chunk of 50, in any of the queues), put while 2 worker processes per queue work them,
 * 8 of which are SIGKILLed at random moments (each respawned at once), and the queue Redis (AOF,
 * appendfsync always) is SIGKILLed and restarted once, mid-run. Must hold: every run of a task
 * began (its claim, on the Redis clock) after some run of each of its dependencies had ended;
 * none is lost, none goes dead, duplicates stay within what the killed workers held and what was
 * active at the restart; and at the
 * end no task waits, every dependency index, step list and outbox is empty, and the invariants
 * hold in each queue.
 */
import { ValidationError } from '../../lib';
import { CARRY_LEASE_MS } from '../../lib/features/deps';
import { eventually, sleep } from '../support/harness';
import { analyse, checkInvariants, layout, parseTask, pending, summary, type Leftovers } from './support/checker';
import { useLab } from './support/lab';
import { executionCount, type Execution } from './support/oracle';
import type { ChildWorker, WorkConfig } from './support/workers';

const AOF = ['--appendonly', 'yes', '--appendfsync', 'always'];
const TASKS = 1000;
const QUEUES = ['g0', 'g1', 'g2'];
const PER_QUEUE = 2;
const KILLS = 8;
/** Each task waits on up to this many tasks among the WINDOW put just before it. */
const MOST_DEPS = 3;
const WINDOW = 60;
const CHUNK = 50;
const WORK: WorkConfig = { concurrency: 4, leaseMs: 2000, workMs: [1, 10], readServerTime: true };

const lab = useLab({ redisArgs: AOF });

interface Node {
  label: string;
  queue: string;
  deps: number[];
}

/** Each task waits on tasks of earlier chunks only: their hashes are known when its chunk is put. */
function graph(): Node[] {
  return Array.from({ length: TASKS }, (_, i) => {
    const chunk = i - (i % CHUNK);
    const from = Math.max(0, chunk - WINDOW);
    const deps = new Set<number>();
    const want = Math.min(chunk - from, Math.floor(Math.random() * (MOST_DEPS + 1)));
    while (deps.size < want) deps.add(from + Math.floor(Math.random() * (chunk - from)));
    return { label: `t15-${i}`, queue: QUEUES[Math.floor(Math.random() * QUEUES.length)], deps: [...deps] };
  });
}

/** Puts the graph in order, a chunk at a time (a task's dependencies are put before it), retrying what a restart interrupts. */
async function putGraph(nodes: Node[], hashes: string[]): Promise<void> {
  const s = await lab.scheduler({ commandTimeout: 2000 });
  for (let start = 0; start < nodes.length; start += CHUNK) {
    const part = nodes.slice(start, start + CHUNK);
    const items = part.map((n) => ({
      data: { label: n.label },
      options: { queue: n.queue, maxAttempts: 50, after: n.deps.map((j) => ({ queue: nodes[j].queue, hash: hashes[j] })) },
    }));
    // The same data again after an unknown outcome: de-dup makes the retry safe.
    for (;;) {
      try {
        const results = await s.putMany(items);
        results.forEach((r, k) => {
          lab.history.ok(part[k].label, r.hash);
          hashes[start + k] = r.hash;
        });
        break;
      } catch (err) {
        // Only a Redis restart may interrupt a put here: anything else is a bug to report.
        if (err instanceof ValidationError) throw err;
        for (const n of part) lab.history.error(n.label, err, true);
        await sleep(100);
      }
    }
  }
}

async function heldBy(pid: number): Promise<number> {
  let held = 0;
  for (const queue of QUEUES) {
    const k = layout(lab.prefix, queue);
    const active = await lab.raw.zRange(k.active, 0, -1);
    if (active.length === 0) continue;
    const fields = await lab.raw.hmGet(k.tasks, active);
    held += fields.filter((f) => f !== null && parseTask(f)?.record.w?.includes(`:${pid}:`)).length;
  }
  return held;
}

/** Runs whose claim came before every run of one of their dependencies had ended. */
function early(nodes: Node[], hashes: string[], runs: Execution[]): string[] {
  const ended = new Map<string, number>();
  for (const r of runs) if (r.finishedAt !== undefined) ended.set(r.hash, Math.min(ended.get(r.hash) ?? Infinity, r.finishedAt));
  const index = new Map(hashes.map((h, i) => [h, i]));
  return runs.flatMap((r) => {
    const node = nodes[index.get(r.hash)!];
    const before = node.deps.filter((j) => !((ended.get(hashes[j]) ?? Infinity) <= r.claimedAt!));
    return before.map((j) => `${node.label} claimed at ${r.claimedAt} before ${nodes[j].label} ended (${ended.get(hashes[j])})`);
  });
}

async function leftBehind(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const queue of QUEUES) {
    const k = layout(lab.prefix, queue);
    const [blocked, after, dependents, deplist, settle, outbox] = (await lab.raw
      .multi()
      .zCard(k.blocked)
      .zCard(k.after)
      .zCard(k.dependents)
      .hLen(k.deplist)
      .lLen(k.settle)
      .zCard(k.outbox)
      .exec()) as unknown as number[];
    Object.assign(counts, {
      [`${queue}.blocked`]: blocked,
      [`${queue}.after`]: after,
      [`${queue}.dependents`]: dependents,
      [`${queue}.deplist`]: deplist,
      [`${queue}.settle`]: settle,
      [`${queue}.outbox`]: outbox,
    });
  }
  return counts;
}

it('runs a 1,000-task graph over 3 queues in order through worker kills and a Redis restart', async () => {
  const started = Date.now();
  const crew: ChildWorker[] = [];
  // Awaited, never left starting: a child still connecting when Redis is killed exits, and its
  // queue would be a worker short for the rest of the run.
  const spawn = async (queue: string) => void crew.push(await lab.pool.spawn({ queue, work: WORK }));
  await Promise.all(QUEUES.flatMap((q) => Array.from({ length: PER_QUEUE }, () => spawn(q))));
  const nodes = graph();
  const hashes: string[] = [];
  const putting = putGraph(nodes, hashes);

  const marks = Array.from({ length: KILLS }, () => Math.floor(TASKS * (0.1 + Math.random() * 0.8))).sort((a, b) => a - b);
  // Redis restarts at one of the middle kill marks, so a run always has its restart (a random
  // point of its own could fall after the last mark, and then no restart happened at all).
  const restartAt = marks[2 + Math.floor(Math.random() * (KILLS - 4))];
  let held = 0;
  let restarted = false;
  let inFlightAtRestart = 0;
  for (const mark of marks) {
    await eventually(async () => (await executionCount(lab.oracle, lab.run)) >= mark, 60_000);
    if (!restarted && mark >= restartAt) {
      // Redis dies mid-run; a restart reloads the AOF: nothing acknowledged is lost. A task
      // active then may run again (its ack may not have reached Redis): a duplicate it excuses.
      for (const q of QUEUES) inFlightAtRestart += await lab.raw.zCard(layout(lab.prefix, q).active);
      await lab.redis.kill();
      await sleep(300);
      await lab.redis.restart();
      restarted = true;
      await eventually(async () => (await lab.raw.ping().catch(() => '')) === 'PONG', 10_000);
    }
    const victim = crew.splice(Math.floor(Math.random() * crew.length), 1)[0];
    await victim.kill();
    held += await heldBy(victim.pid);
    await spawn(victim.config.queue);
  }
  await putting;
  await eventually(async () => {
    const left = await Promise.all(QUEUES.map((q) => pending(lab.raw, lab.prefix, q)));
    return left.every((n) => n === 0);
  }, 60_000);

  // Steps a killed carrier held come back when their lease ends, and a worker carries them then.
  const drained = Date.now();
  await eventually(async () => Object.values(await leftBehind()).every((n) => n === 0), CARRY_LEASE_MS + 10_000).catch(() => {});
  const indexesMs = Date.now() - drained;
  const runs = await lab.executions();
  const dead = await Promise.all(QUEUES.map((q) => lab.raw.zRange(layout(lab.prefix, q).dead, 0, -1)));
  const left: Leftovers = { dead: new Set(dead.flat()), expired: 0 };
  const f = analyse(lab.history, runs, left);
  const tooEarly = early(nodes, hashes, runs);
  const violations = (
    await Promise.all(
      QUEUES.map((q) =>
        checkInvariants(
          lab.raw,
          lab.prefix,
          q,
          QUEUES.filter((o) => o !== q),
        ),
      ),
    )
  ).flat();
  const indexes = await leftBehind();
  const steps = await Promise.all(QUEUES.map((q) => lab.raw.zRangeWithScores(layout(lab.prefix, q).outbox, 0, -1)));
  const edges = nodes.reduce((n, node) => n + node.deps.length, 0);
  const crossQueue = nodes.reduce((n, node) => n + node.deps.filter((j) => nodes[j].queue !== node.queue).length, 0);
  console.log(
    summary('T15', f, {
      edges,
      crossQueue,
      kills: KILLS,
      restarts: restarted ? 1 : 0,
      heldAtKills: held,
      inFlightAtRestart,
      early: tooEarly.length,
      indexesMs,
      wallMs: Date.now() - started,
    }),
  );

  expect(restarted).toBe(true);
  expect(f).toMatchObject({ ok: TASKS, lost: 0, unexpected: 0, untyped: 0, hashConflicts: 0, dead: 0 });
  expect(f.duplicated).toBeLessThanOrEqual(held + inFlightAtRestart);
  expect(tooEarly).toEqual([]);
  expect(violations).toEqual([]);
  expect({ left: Object.entries(indexes).filter(([, n]) => n > 0), steps: steps.flat() }).toEqual({ left: [], steps: [] });
});
