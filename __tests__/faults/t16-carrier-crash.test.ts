/**
 * T16 (issue 15): a release across queues is two steps (the parent's ack records it in its own
 * queue's outbox; a client carries it to the dependent's queue), so a process can die between
 * them. Three crash points, each hit on purpose: (A) the acking worker process is SIGKILLed the
 * moment its ack answers, before its carry applies anything; (B) a carrier leased the steps and
 * died before applying them; (C) a carrier applied them and died before saying so. Must hold:
 * no dependent is released early or lost (A and B wait, C's are ready), every one runs exactly
 * once after the carry lease runs out and idle workers of the parents' queue carry again (an
 * applied step applied twice releases nothing twice), and nothing is left in any index.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import type { Scheduler } from '../../lib';
import type { Context } from '../../lib/redis/context';
import { CARRY_LEASE_MS } from '../../lib/features/deps';
import { childModule } from '../support/children';
import { eventually, sleep } from '../support/harness';
import { checkInvariants, layout } from './support/checker';
import { useLab } from './support/lab';
import { apply } from '../../lib/ops/apply';
import { outbox } from '../../lib/ops/outbox';

const lab = useLab();
const UP = 'up';
const DOWN = 'down';
const PER_CASE = 3;

/** Forks a worker that acks the next task of UP and dies; resolves when it is dead by SIGKILL. */
function ackAndDie(): Promise<void> {
  const compiled = childModule(path.join(__dirname, 'support', 'ack-and-die.ts'));
  const child = fork(compiled.module, [lab.redis.url, lab.prefix, UP], { execArgv: compiled.execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => child.once('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`ack-and-die exited with ${code ?? signal}`)))));
}

/** The scheduler's own script runner: what a carrier process runs, one step at a time. */
function internals(s: Scheduler): Context {
  return (s as unknown as { ctx: Context }).ctx;
}

it('a carrier that dies between the two steps neither loses a dependent nor starts it twice', async () => {
  const s = await lab.scheduler();
  const ctx = internals(s);
  const state = async (hash: string) => (await s.get(hash, { queue: DOWN }))?.state;
  const putPair = async (label: string) => {
    const parent = await s.put({ label }, { queue: UP });
    const child = await s.put({ label, child: true }, { queue: DOWN, after: [{ queue: UP, hash: parent.hash }] });
    return child.hash;
  };

  // B and C: their parents' workers died at the ack. A dying worker's carry may have leased its
  // step (wait for those leases to lapse), and the next one's claim may have carried a step in
  // full (a live carrier: fine). Then a carrier leases every step left, applies half, and dies.
  const pairs: string[] = [];
  for (let i = 0; i < 2 * PER_CASE; i++) pairs.push(await putPair(`bc${i}`));
  for (let i = 0; i < 2 * PER_CASE; i++) await ackAndDie();
  const k = layout(lab.prefix, UP);
  const outboxDue = async () => {
    const t = await lab.raw.time();
    return lab.raw.zCount(k.outbox, '-inf', Math.floor(t.getTime() / 1000) * 1000 + Math.floor(t.microseconds / 1000));
  };
  await eventually(async () => (await outboxDue()) === (await lab.raw.zCard(k.outbox)), CARRY_LEASE_MS + 2000);
  const { steps: leased } = await ctx.scripts.run(outbox, ctx.keys(UP), { lease: CARRY_LEASE_MS, most: 100, carried: [] });
  expect(leased.length).toBeGreaterThanOrEqual(2);
  const ofC = leased.slice(0, Math.ceil(leased.length / 2));
  const c = pairs.filter((hash) => ofC.some((step) => step.includes(hash)));
  const b = pairs.filter((hash) => !c.includes(hash) && leased.some((step) => step.includes(hash)));
  for (const hash of [...b, ...c]) expect(await state(hash)).toBe('waiting');
  await ctx.scripts.run(apply, ctx.keys(DOWN), { events: ctx.options.eventsMaxLength, steps: ofC });
  const leasedAt = Date.now();

  // A: the acking worker died; its steps are recorded (and perhaps leased by its dying carry).
  const a: string[] = [];
  for (let i = 0; i < PER_CASE; i++) {
    a.push(await putPair(`a${i}`));
    await ackAndDie();
  }
  // The last one's step no live process has touched; earlier ones a later worker's claim may carry.
  expect(await state(a[PER_CASE - 1])).toBe('waiting');
  for (const hash of b) expect(await state(hash)).toBe('waiting');
  for (const hash of c) expect(await state(hash)).toBe('ready');

  // Idle workers in both queues now: they carry every step whose lease has lapsed, B's and C's
  // again when the lease ends; C's second apply must release nothing.
  const ran = new Map<string, number>();
  const workers = [s.work(async () => {}, { queue: UP }), s.work(async (t) => void ran.set(t.hash, (ran.get(t.hash) ?? 0) + 1), { queue: DOWN })];
  await eventually(() => c.every((h) => ran.has(h)), 2000);
  expect(b.some((h) => ran.has(h)) && Date.now() - leasedAt < CARRY_LEASE_MS - 500).toBe(false);
  await eventually(() => [...pairs, ...a].every((h) => ran.has(h)), CARRY_LEASE_MS + 3000);
  await eventually(async () => (await lab.raw.zCard(k.outbox)) === 0, 5000);
  await sleep(500); // a second release of C's would be ready, and run, by now
  await Promise.all(workers.map((w) => w.close()));

  expect([...ran.values()].every((n) => n === 1)).toBe(true);
  expect(ran.size).toBe(3 * PER_CASE);
  const violations = [...(await checkInvariants(lab.raw, lab.prefix, UP, [DOWN])), ...(await checkInvariants(lab.raw, lab.prefix, DOWN, [UP]))];
  expect(violations).toEqual([]);
  const d = layout(lab.prefix, DOWN);
  const left = await lab.raw.multi().zCard(k.dependents).zCard(d.after).zCard(d.blocked).hLen(d.deplist).exec();
  expect(left).toEqual([0, 0, 0, 0]);
});
