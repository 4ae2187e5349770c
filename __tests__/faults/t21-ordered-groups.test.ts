/**
 * T21 (issue 30): ordered groups under worker crashes. 20 groups of 30 tasks each, put in order,
 * go to a queue with orderGroups(true) and 3 worker processes × concurrency 4; 15% of attempts
 * fail at random (retried after 50 ms), and 4 SIGKILLs hit the workers at random moments, each
 * respawned at once. Must hold: every task ran (lost 0, unexpected 0), and each group's handler
 * starts, in the order they happened, go through its tasks in put order: a task starts again only
 * right after itself (a retry, or a re-run after its worker died), never after a later task, and
 * no task starts before the one ahead of it ran; duplicates at most what the killed workers held.
 */
import { eventually } from '../support/harness';
import { checkInvariants, layout, summary } from './support/checker';
import { useLab } from './support/lab';
import type { ChildWorker, WorkConfig } from './support/workers';

const GROUPS = 20;
const PER_GROUP = 30;
const TASKS = GROUPS * PER_GROUP;
const KILLS = 4;
const CONCURRENCY = 4;
const WORK: WorkConfig = { concurrency: CONCURRENCY, leaseMs: 2000, workMs: [20, 60], recordStarts: true, backoffMs: 50 };

const lab = useLab();

/** Where each group's handler starts break put order: `<group>: <index> after <index>`. */
function outOfOrder(starts: string[]): string[] {
  const last = new Map<string, number>();
  const broken: string[] = [];
  for (const label of starts) {
    const [, g, i] = /^t21-(g\d+)-(\d+)$/.exec(label)!;
    const at = Number(i);
    const before = last.get(g) ?? -1;
    // The same task again (retry, re-run after a kill), or the next one: nothing else.
    if (at !== before && at !== before + 1) broken.push(`${g}: ${at} after ${before}`);
    last.set(g, at);
  }
  return broken;
}

it('runs every ordered group in put order through random failures and worker kills', async () => {
  const started = Date.now();
  const s = await lab.scheduler();
  await s.orderGroups(true);
  const crew: ChildWorker[] = [];
  for (let i = 0; i < 3; i++) crew.push(await lab.pool.spawn({ work: WORK }));
  const items = [];
  for (let i = 0; i < PER_GROUP; i++) for (let g = 0; g < GROUPS; g++) items.push({ data: { label: `t21-g${g}-${i}`, failP: 0.15 }, options: { group: `g${g}`, maxAttempts: 100 } });
  // One putMany: its chunks go out pipelined, and Redis runs them in put order (put-chunks.ts).
  await lab.history.track(
    items.map((item) => item.data.label),
    s.putMany(items),
  );

  // Kills at random moments between 10% and 80% of the executions, each worker respawned at once.
  const marks = Array.from({ length: KILLS }, () => Math.floor(TASKS * (0.1 + Math.random() * 0.7))).sort((a, b) => a - b);
  const violations: string[] = [];
  for (const mark of marks) {
    await eventually(async () => (await lab.executions()).length >= mark, 60_000);
    const victim = crew.splice(Math.floor(Math.random() * crew.length), 1)[0];
    await victim.kill();
    crew.push(await lab.pool.spawn({ work: WORK }));
    violations.push(...(await checkInvariants(lab.raw, lab.prefix, lab.queue)));
  }

  await eventually(async () => new Set((await lab.executions()).map((e) => e.label)).size === TASKS, 60_000);
  const starts = (await lab.starts()).map((e) => e.label);
  const f = await lab.figures();
  const broken = outOfOrder(starts);
  violations.push(...(await checkInvariants(lab.raw, lab.prefix, lab.queue)));
  console.log(summary('T21', f, { starts: starts.length, outOfOrder: broken.length, kills: KILLS, wallMs: Date.now() - started }));

  expect(broken).toEqual([]);
  expect(violations).toEqual([]);
  expect(f).toMatchObject({ ok: TASKS, lost: 0, unexpected: 0 });
  // A re-run only for a task a killed worker held at its kill (at most its concurrency each).
  expect(f.duplicated).toBeLessThanOrEqual(KILLS * CONCURRENCY);
  // Every group's held head was given back: none is left holding its group.
  const fields = await lab.raw.hKeys(layout(lab.prefix, lab.queue).glimits);
  expect(fields.filter((k) => k.endsWith('|head'))).toEqual([]);
});
