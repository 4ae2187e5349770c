/**
 * Ordered groups, as a property (issue 41): random sequences of every path that adds, runs, removes
 * or moves a task (put, claim, ack, fail, snooze, clean of each state, purge, cancel, the queue's and
 * a task's own dead caps, expiry, redrive, reschedule, changePriority) over a few groups of an
 * ordered queue, checked after each step against the rule "each group runs in put order, one at a
 * time, and never stalls while it has a runnable task", and that no task is lost.
 *
 * The model: a task's place in its group is when it last became ready (put, due again, redriven,
 * moved to the other lane by a priority change), within its lane (a group's priority tasks have a
 * lane of their own: docs/api.md#priority-and-order); a task whose attempt ended but that runs
 * again (a retry, a snooze; dead with holdOnDead) holds its group's head, and runs before the rest.
 * Each step is followed by a claim, which must:
 * - lease nothing of a group that has a task leased, or whose head is another task;
 * - lease a task that is not the head only when no ready task of its lane became ready before it;
 * - lease some task when a group is runnable (no task leased, and its head, else some task, ready).
 * A task may leave only by an ack, a removing path (clean, cancel, purge, a trim of the dead) or
 * its expiry; each step reads every task's state back (get) and holds it to that.
 *
 * A failure prints its seed and the steps that led to it; DOCKET_SEED=<seed> replays that run alone.
 */
import type { Scheduler } from '../lib';
import { useRedis } from './support/harness';

const redis = useRedis();

// DOCKET_RUNS=<n> for a longer soak.
const RUNS = Number(process.env.DOCKET_RUNS ?? 40);
const STEPS = 120;
const GROUPS = ['a', 'b', 'c'];
const HOUR = 3_600_000;

/** mulberry32: a small seeded PRNG, so a failing run can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type State = 'ready' | 'delayed' | 'active' | 'dead';
interface Model {
  hash: string;
  label: string;
  group: string;
  level: number;
  state: State;
  /** When it last became ready (its place in its lane), and that lane. */
  seq: number;
  lane: 'p' | 'n';
  /** Past its expiry: dropped by the claim that meets it, never run. */
  expired: boolean;
  /** The lease, while active. */
  task?: Awaited<ReturnType<Scheduler['claimMany']>>[number];
}

type Step = 'put' | 'ack' | 'fail' | 'snooze' | 'clean' | 'purge' | 'cancel' | 'keep' | 'expire' | 'redrive' | 'reschedule' | 'priority';
const WEIGHTS: [Step, number][] = [
  ['put', 24],
  ['ack', 14],
  ['fail', 14],
  ['snooze', 4],
  ['clean', 7],
  ['purge', 2],
  ['cancel', 6],
  ['keep', 2],
  ['expire', 4],
  ['redrive', 6],
  ['reschedule', 8],
  ['priority', 6],
];

/** Runs one random sequence from `seed`; throws, with the seed and the steps, at the first broken rule. */
async function run(seed: number): Promise<void> {
  const rnd = prng(seed);
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(rnd() * xs.length)];
  const s = await redis.scheduler();
  const hold = rnd() < 0.5;
  await s.orderGroups(true, { holdOnDead: hold });
  const tasks = new Map<string, Model>();
  const heads = new Map<string, string>();
  const log: string[] = [`seed ${seed}, holdOnDead ${hold}`];
  let seq = 0;
  let puts = 0;
  const fail = (why: string): never => {
    const model = [...tasks.values()].map((t) => `${t.label}:${t.state}${t.expired ? '/expired' : ''}@${t.lane}${t.seq}`).join(' ');
    const held = [...heads].map(([g, h]) => `${g}:${tasks.get(h)?.label ?? h}`).join(' ');
    throw new Error(
      `ordered-groups property broken (replay: DOCKET_SEED=${seed}): ${why}\n  tasks: ${model}\n  heads: ${held}\n  ${log.slice(process.env.DOCKET_SEED ? 0 : -40).join('\n  ')}`,
    );
  };
  const live = (state: State | 'pending') => [...tasks.values()].filter((t) => (state === 'pending' ? t.state === 'ready' || t.state === 'delayed' : t.state === state));
  const becameReady = (t: Model) => {
    t.seq = ++seq;
    t.lane = t.level > 0 ? 'p' : 'n';
  };

  /** Reads every task's state back; `removing`: the step may delete pending tasks (clean, cancel). */
  async function reconcile(step: string, removing: boolean, claimed: boolean) {
    for (const t of [...tasks.values()]) {
      const info = await s.get(t.hash);
      if (!info) {
        // Only a removing path, a trim of the dead, or a claim meeting an expired task deletes one.
        if (!(removing || t.state === 'dead' || (claimed && t.expired))) fail(`${t.label} (${t.state}) vanished at ${step}`);
        tasks.delete(t.hash);
        if (heads.get(t.group) === t.hash) heads.delete(t.group);
        continue;
      }
      const state = info.state as State;
      if (state !== 'active' && t.state === 'active') fail(`${t.label} left the active set at ${step}`);
      if (state === 'ready' && t.state !== 'ready') becameReady(t);
      t.state = state;
    }
  }

  /** Whether group g may run a task now: none of it leased, and its head (else some task) ready. */
  const runnable = (g: string) => {
    const mine = [...tasks.values()].filter((t) => t.group === g);
    if (mine.some((t) => t.state === 'active')) return false;
    const head = heads.get(g);
    if (head) return tasks.get(head)!.state === 'ready' && !tasks.get(head)!.expired;
    return mine.some((t) => t.state === 'ready' && !t.expired);
  };

  /** The claim after each step (of 1 to 3 tasks), held to the rule. */
  async function probe(step: string) {
    const want = GROUPS.filter(runnable);
    const count = 1 + Math.floor(rnd() * 3);
    const claimed = await s.claimMany(count);
    await reconcile(`claim after ${step}`, false, true);
    // Each runnable group gives one, as far as the count goes.
    if (claimed.length < Math.min(count, want.length)) fail(`claimMany(${count}) leased ${claimed.length} after ${step}, with group(s) ${want.join(',')} runnable`);
    for (const task of claimed) leased(task);
  }

  /** One task the probe leased, held to the rule. */
  function leased(task: Awaited<ReturnType<Scheduler['claimMany']>>[number]) {
    const t = tasks.get(task.hash) ?? fail(`claimed an unknown task ${task.hash}`);
    log.push(`  claimed ${t.label}`);
    const g = t.group;
    if ([...tasks.values()].some((o) => o !== t && o.group === g && o.task)) fail(`${t.label} leased while another task of ${g} is`);
    const head = heads.get(g);
    if (head && head !== t.hash) fail(`${t.label} leased while ${tasks.get(head)?.label} holds ${g}'s head`);
    if (!head) {
      const ahead = [...tasks.values()].filter((o) => o.group === g && o.state === 'ready' && !o.expired && o.lane === t.lane && o.seq < t.seq);
      if (ahead.length > 0) fail(`${t.label} leased before ${ahead.map((o) => o.label).join(',')} of its group's lane`);
    }
    heads.delete(g);
    t.task = task;
  }

  async function act(step: Step) {
    const now = Date.now();
    switch (step) {
      case 'put': {
        const group = pick(GROUPS)!;
        const label = `${group}${puts++}`;
        const level = rnd() < 0.2 ? 1 + Math.floor(rnd() * 3) : 0;
        const maxAttempts = 1 + Math.floor(rnd() * 2);
        const r = rnd();
        const keep = r < 0.1 ? { dead: false as const } : r < 0.4 ? { dead: { count: Math.floor(rnd() * 3) } } : undefined;
        const delayed = rnd() < 0.1;
        const put = await s.put(label, { group, priority: level, maxAttempts, expire: HOUR, ...(keep ? { keep } : {}), ...(delayed ? { delay: HOUR } : {}) });
        tasks.set(put.hash, { hash: put.hash, label, group, level, state: delayed ? 'delayed' : 'ready', seq: 0, lane: 'n', expired: false });
        if (!delayed) becameReady(tasks.get(put.hash)!);
        log.push(`put ${label} level ${level} attempts ${maxAttempts} keep ${JSON.stringify(keep)}${delayed ? ' delayed' : ''}`);
        return false;
      }
      case 'ack':
      case 'fail':
      case 'snooze': {
        const t = pick(live('active'));
        if (!t) return false;
        const task = t.task!;
        t.task = undefined;
        if (step === 'ack') {
          if (!(await s.ack(task))) fail(`ack of ${t.label} refused`);
          tasks.delete(t.hash);
          log.push(`ack ${t.label}`);
        } else if (step === 'snooze') {
          if (!(await s.snooze(task, HOUR))) fail(`snooze of ${t.label} refused`);
          heads.set(t.group, t.hash);
          log.push(`snooze ${t.label}`);
        } else {
          const retryIn = rnd() < 0.5 ? 0 : HOUR;
          const outcome = await s.fail(task, { error: new Error('x'), retryIn });
          // It holds its group's head while it runs again; dead, only with holdOnDead.
          if (outcome === 'retry' || hold) heads.set(t.group, t.hash);
          log.push(`fail ${t.label} retryIn ${retryIn}: ${outcome}`);
          if (outcome === 'dead') t.state = 'dead';
        }
        // Read back below; one that went ready again takes its new place then.
        if (t.state === 'active') t.state = 'delayed';
        return false;
      }
      case 'clean': {
        const state = pick(['ready', 'delayed', 'dead'] as const)!;
        const limit = rnd() < 0.3 ? undefined : 1 + Math.floor(rnd() * 3);
        const n = await s.clean({ state, ...(limit ? { limit } : {}) });
        log.push(`clean ${state} limit ${limit}: ${n}`);
        return true;
      }
      case 'purge':
        log.push(`purgeDead: ${await s.purgeDead()}`);
        return false;
      case 'cancel': {
        const t = pick([...live('pending'), ...live('dead')]);
        if (!t) return false;
        if (!(await s.cancel(t.hash))) fail(`cancel of ${t.label} (${t.state}) refused`);
        log.push(`cancel ${t.label}`);
        return true;
      }
      case 'keep': {
        const count = rnd() < 0.4 ? 1000 : 1 + Math.floor(rnd() * 3);
        await s.keep({ dead: { count } });
        log.push(`keep dead ${count}`);
        return false;
      }
      case 'expire':
      case 'reschedule': {
        const t = pick(live('pending'));
        if (!t) return false;
        // Expire: due long ago, past its window (expire counts from the run-at). Else now or later.
        const at = step === 'expire' ? now - 2 * HOUR : rnd() < 0.5 ? now - 1000 : now + HOUR;
        if (!(await s.reschedule(t.hash, at))) fail(`reschedule of ${t.label} refused`);
        t.expired = step === 'expire';
        log.push(`${step} ${t.label} (${t.state}) to ${at - now}`);
        return false;
      }
      case 'redrive': {
        const t = pick(live('dead'));
        if (!t) return false;
        if (!(await s.redrive(t.hash))) fail(`redrive of ${t.label} refused`);
        t.expired = false;
        log.push(`redrive ${t.label}`);
        return false;
      }
      case 'priority': {
        const t = pick(live('pending'));
        if (!t) return false;
        const level = pick([0, 0, 1, 2])!;
        await s.changePriority(t.hash, level);
        const crossed = t.level > 0 !== level > 0;
        t.level = level;
        // A ready task moves to the tail of its group's other lane when the level crosses 0.
        if (crossed && t.state === 'ready') becameReady(t);
        log.push(`priority ${t.label} (${t.state}) to ${level}`);
        return false;
      }
    }
  }

  const total = WEIGHTS.reduce((n, [, w]) => n + w, 0);
  for (let i = 0; i < STEPS; i++) {
    let r = rnd() * total;
    const step = WEIGHTS.find(([, w]) => (r -= w) < 0)![0];
    const removing = await act(step);
    await reconcile(step, removing, false);
    await probe(step);
  }

  // The end: every group drains. Held heads are given back (dead ones redriven, waiting ones due
  // now); whatever is ready runs, one claim at a time; nothing runnable is left behind.
  for (let round = 0; round < 50; round++) {
    for (const t of live('active')) {
      await s.ack(t.task!);
      tasks.delete(t.hash);
    }
    for (const t of live('dead')) if (heads.get(t.group) === t.hash) await s.redrive(t.hash);
    for (const t of live('delayed')) {
      await s.reschedule(t.hash, Date.now() - 1000);
      t.expired = false;
    }
    log.push(`drain round ${round}`);
    await reconcile('drain', false, false);
    await probe('drain');
    if (GROUPS.every((g) => !runnable(g)) && live('active').length === 0 && live('delayed').length === 0) break;
  }
  const left = [...tasks.values()].filter((t) => t.state !== 'dead' && !t.expired);
  if (left.length > 0) fail(`left undrained: ${left.map((t) => `${t.label} (${t.state})`).join(', ')}`);
  await s.close();
}

describe('ordered groups through random paths', () => {
  it('each group runs in put order, one at a time, never stalls with a runnable task, loses none', async () => {
    const replay = process.env.DOCKET_SEED;
    const base = replay ? Number(replay) : Math.floor(Math.random() * 2 ** 31);
    for (let i = 0; i < (replay ? 1 : RUNS); i++) await run(base + i);
  }, 120_000);
});
