/**
 * T12 (issue 14): worker processes are SIGKILLed while their tasks report progress and keep their
 * results. 1,000 tasks with keepResult go to 3 worker processes × concurrency 8, whose handlers
 * report progress as they run and return `{ label }`; 10 SIGKILLs hit them at random moments.
 * Must hold: lost 0; every task's outcome is `done` with its own result, readable until its
 * keepResult ends (checked against the kept set's own keep-until); a re-delivered task sees the
 * progress an earlier attempt stored; and once the spans end, no results, kept or progress key is
 * left, nor any outcome readable.
 */
import { eventually, serverNow, sleep } from '../support/harness';
import { checkInvariants, layout, pending, summary } from './support/checker';
import { useLab } from './support/lab';
import { executionCount, oracleKeys, readList, type Progressed, type Retried } from './support/oracle';
import type { ChildWorker, WorkConfig } from './support/workers';

const TASKS = 1000;
const WORKERS = 3;
const KILLS = 10;
const LEASE_MS = 2000;
/** Longer than the whole run (about 30 s on a busy 2-core machine), so every outcome is read within its span. */
const KEEP_MS = 60_000;
const WORK: WorkConfig = { concurrency: 8, leaseMs: LEASE_MS, workMs: [5, 60], outcomes: true };

const lab = useLab();

it('keeps every outcome and progress through worker crashes, then leaves nothing behind', async () => {
  const started = Date.now();
  const crew: ChildWorker[] = await Promise.all(Array.from({ length: WORKERS }, () => lab.pool.spawn({ work: WORK })));
  const producer = await lab.scheduler();
  // This scenario is about keepResult's spans: the done history, which answers result() for a
  // finished task beyond them by design (history.test.ts, T8), is turned off so that "nothing
  // readable once the spans end" is what it checks.
  await producer.keep({ done: { count: 0 } });
  const items = Array.from({ length: TASKS }, (_, i) => ({ data: { label: `t12-${i}` }, options: { keepResult: KEEP_MS, maxAttempts: 20 } }));
  const hashes = new Map<string, string>();
  for (let i = 0; i < TASKS; i += 250) {
    const chunk = items.slice(i, i + 250);
    const call = producer.putMany(chunk);
    await lab.history.track(
      chunk.map((item) => item.data.label),
      call,
    );
    (await call).forEach((r, j) => hashes.set(r.hash, chunk[j].data.label));
  }

  const marks = Array.from({ length: KILLS }, () => Math.floor(TASKS * (0.05 + Math.random() * 0.85))).sort((a, b) => a - b);
  const spawning: Array<Promise<unknown>> = [];
  for (const mark of marks) {
    await eventually(async () => (await executionCount(lab.oracle, lab.run)) >= mark, 60_000);
    const victim = crew.splice(Math.floor(Math.random() * crew.length), 1)[0];
    await victim.kill();
    spawning.push(lab.pool.spawn({ work: WORK }).then((child) => crew.push(child)));
    while (crew.length === 0) await sleep(20);
  }
  await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) === 0, LEASE_MS + 60_000);
  await Promise.all(spawning);
  const violations = await checkInvariants(lab.raw, lab.prefix, lab.queue);
  const f = await lab.figures();

  // Every outcome, read while its span lasts (the kept set's own keep-until says until when).
  const k = layout(lab.prefix, lab.queue);
  const kept = new Map((await lab.raw.zRangeWithScores(k.kept, 0, -1)).map((e) => [e.value, e.score]));
  const readAt = await serverNow(lab.raw);
  let readable = 0;
  const wrong: string[] = [];
  for (const [hash, label] of hashes) {
    const out = await producer.result(hash);
    const until = kept.get(hash);
    if (until !== undefined && until > readAt + 1000) {
      if (out?.state === 'done' && (out.result as { label?: string } | null)?.label === label) readable++;
      else wrong.push(`${hash}: ${JSON.stringify(out)}`);
    } else wrong.push(`${hash}: no kept outcome with time left (${until})`);
  }

  // A re-delivery saw the progress an earlier attempt had stored (when that write was noted).
  const keys = oracleKeys(lab.run);
  const progressed = await readList<Progressed>(lab.oracle, keys.progressed);
  const retried = await readList<Retried>(lab.oracle, keys.retried);
  const stored = new Set(progressed.map((p) => `${p.hash}:${p.attempt}`));
  const blind = retried.filter((r) => {
    const earlier = Array.from({ length: r.attempt - 1 }, (_, i) => i + 1).some((a) => stored.has(`${r.hash}:${a}`));
    return earlier && r.progress === null;
  });

  // Once every span has ended, nothing of the outcomes is left.
  const last = Math.max(...kept.values());
  await sleep(Math.max(0, last - (await serverNow(lab.raw))) + 500);
  const left = (await Promise.all([k.results, k.kept, k.progress].map(async (key) => ((await lab.raw.exists(key)) ? [key] : [])))).flat();
  const sample = [...hashes.keys()].slice(0, 20);
  const after = await Promise.all(sample.map((hash) => producer.result(hash)));

  console.log(summary('T12', f, { kills: KILLS, readable, retried: retried.length, retriedSawProgress: retried.filter((r) => r.progress).length, wallMs: Date.now() - started }));
  expect(f).toMatchObject({ ok: TASKS, lost: 0, unexpected: 0, untyped: 0, dead: 0 });
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(readable).toBe(TASKS);
  expect(blind).toEqual([]);
  expect(violations).toEqual([]);
  expect(left).toEqual([]);
  expect(after.every((o) => o === null)).toBe(true);
});
