/**
 * T14 (issue 15): a worker process SIGKILLed while it holds every slot of a queue's concurrency
 * limit. Must hold: the slots come back through the usual recovery (the dead worker's heartbeat
 * runs out: 2–2.5 s after the kill, on the Redis clock), another process's worker then leases,
 * no two runs ever overlap beyond the limit, and every task runs; nothing lost.
 */
import { eventually } from '../support/harness';
import { layout, summary } from './support/checker';
import { useLab } from './support/lab';
import type { WorkConfig } from './support/workers';

const TASKS = 20;
const LIMIT = 2;
const lab = useLab();

/** The most runs in progress at any one time, from each run's claim and end (Redis clock). */
function mostAtOnce(runs: Array<{ claimedAt?: number; finishedAt?: number }>): number {
  const edges = runs.flatMap(
    (r) =>
      [
        [r.claimedAt!, 1],
        [r.finishedAt!, -1],
      ] as Array<[number, number]>,
  );
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) most = Math.max(most, (now += step));
  return most;
}

it("gives a killed worker's concurrency slots back within the heartbeat recovery time", async () => {
  const started = Date.now();
  const s = await lab.scheduler();
  await s.limitConcurrency(LIMIT);
  const slow: WorkConfig = { concurrency: 4, leaseMs: 30_000, workMs: [60_000, 60_000] };
  const fast: WorkConfig = { concurrency: 4, leaseMs: 30_000, workMs: [20, 40], readServerTime: true };
  const holder = await lab.pool.spawn({ work: slow });
  const items = Array.from({ length: TASKS }, (_, i) => ({ data: { label: `t14-${i}` } }));
  await lab.history.track(
    items.map((item) => item.data.label),
    s.putMany(items),
  );
  const active = layout(lab.prefix, lab.queue).active;
  await eventually(async () => (await lab.raw.zCard(active)) === LIMIT, 10_000);
  // A second process waits behind the full limit; it may take nothing while the holder lives.
  await lab.pool.spawn({ work: fast });
  expect(await lab.executions()).toEqual([]);
  const killedAt = await s.time();
  await holder.kill();

  await eventually(async () => (await lab.executions()).length === TASKS, 20_000);
  const runs = await lab.executions();
  const firstAfterKill = Math.min(...runs.map((r) => r.claimedAt!)) - killedAt;
  const f = await lab.figures();
  console.log(summary('T14', f, { limit: LIMIT, firstClaimAfterKillMs: firstAfterKill, mostAtOnce: mostAtOnce(runs), wallMs: Date.now() - started }));

  expect(f).toMatchObject({ ok: TASKS, lost: 0, unexpected: 0, duplicated: 0 });
  expect(firstAfterKill).toBeGreaterThanOrEqual(1500);
  expect(firstAfterKill).toBeLessThanOrEqual(3000);
  expect(mostAtOnce(runs)).toBeLessThanOrEqual(LIMIT);
  expect(await s.concurrencyLimit()).toEqual({ limit: LIMIT, active: 0 });
});
