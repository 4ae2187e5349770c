/**
 * T9 (issue 3): 50 clients (50 schedulers, 50 connections) put the same payload at the same
 * moment, for each of 1,000 payloads. De-duplication is one atomic script per put, so: exactly
 * 1,000 tasks exist, each payload was added by exactly one caller, and every caller of a payload
 * got the same hash. A worker then drains the queue: each payload runs once.
 */
import type { PutResult, Scheduler } from '../../lib';
import { eventually } from '../support/harness';
import { checkInvariants, layout, pending, summary, taskCount } from './support/checker';
import { useLab } from './support/lab';

const CLIENTS = 50;
const PAYLOADS = 1000;
/** Payloads in flight at once: 20 × 50 = 1,000 concurrent puts, enough to interleave them well. */
const WAVE = 20;

const lab = useLab();

/** All clients put payload `i` at once; resolves with each client's answer. */
async function race(clients: Scheduler[], i: number): Promise<PutResult[]> {
  const label = `t9-${i}`;
  const data = { label, body: { n: i, tags: ['same', 'payload'] } };
  // No fault is injected here, so any rejection fails the test outright.
  const results = await Promise.all(clients.map((c) => c.put(data)));
  for (const r of results) lab.history.ok(label, r.hash);
  return results;
}

it('keeps exactly one task per payload when 50 clients put it at once', async () => {
  const started = Date.now();
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => lab.scheduler()));
  const answers: PutResult[][] = [];
  for (let first = 0; first < PAYLOADS; first += WAVE) {
    const wave = Array.from({ length: WAVE }, (_, j) => race(clients, first + j));
    answers.push(...(await Promise.all(wave)));
  }
  const putMs = Date.now() - started;
  const splitHashes = answers.filter((a) => new Set(a.map((r) => r.hash)).size !== 1).length;
  const addedTwice = answers.filter((a) => a.filter((r) => r.added).length !== 1).length;
  const deduplicated = Number(await lab.raw.hGet(layout(lab.prefix, lab.queue).counts, 'deduplicated'));
  const tasks = await taskCount(lab.raw, lab.prefix, lab.queue);
  const ready = await lab.raw.lLen(layout(lab.prefix, lab.queue).ready);
  expect(await checkInvariants(lab.raw, lab.prefix, lab.queue)).toEqual([]);
  await lab.pool.spawn({ work: { concurrency: 16, leaseMs: 10_000, workMs: [0, 0] } });
  await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) === 0, 30_000);
  const f = await lab.figures();
  console.log(summary('T9', f, { tasks, splitHashes, addedTwice, deduplicated, putMs, wallMs: Date.now() - started }));
  expect(tasks).toBe(PAYLOADS);
  expect(splitHashes).toBe(0);
  expect(addedTwice).toBe(0);
  expect(deduplicated).toBe(PAYLOADS * (CLIENTS - 1));
  expect(ready).toBe(PAYLOADS);
  expect(f).toMatchObject({ puts: PAYLOADS * CLIENTS, ok: PAYLOADS * CLIENTS, hashConflicts: 0, failed: 0, indeterminate: 0 });
  expect(f).toMatchObject({ executions: PAYLOADS, lost: 0, unexpected: 0, duplicated: 0 });
  expect(await checkInvariants(lab.raw, lab.prefix, lab.queue)).toEqual([]);
});
