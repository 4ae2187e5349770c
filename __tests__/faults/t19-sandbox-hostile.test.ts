/**
 * T19 (issue 34): sandboxed workers SIGKILLed and restarted while their handlers return hostile
 * values. 3 worker processes × concurrency 4 run support/sandbox/hostile.js in threads; of 300
 * tasks, two thirds return `{ label }` and the rest return, report as progress, log or throw a
 * hostile value (4,000 deep, a 5,000-node list, cyclic, 200 KB, a shared-child bomb, a `__proto__`
 * key, a throwing getter, a class instance, a function, NaN). 6 SIGKILLs hit random workers, each
 * respawned at once. Must hold ("a sandboxed attempt always settles, whatever its handler
 * returns", guarantees.md): once the leases of the killed have lapsed and the survivors drained,
 * no task is active (so none without a live holder), none is lost: every put ended done (the
 * normal and `__proto__` ones, with their own result) or dead (the hostile ones, with the typed
 * error a handler in one thread gets), and the invariants hold.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { childModule } from '../support/children';
import { eventually, sleep } from '../support/harness';
import { checkInvariants, layout, pending } from './support/checker';
import { useLab } from './support/lab';
import type { SandboxChildConfig } from './support/sandbox-child';
import { ChildWorker, ready } from './support/workers';

const TASKS = 300;
const WORKERS = 3;
const KILLS = 6;
const LEASE_MS = 2000;
const ROOT = path.resolve(__dirname, '..', '..');
const CHILD = path.join(__dirname, 'support', 'sandbox-child.ts');
const SANDBOX = { module: path.join(ROOT, '__tests__', 'support', 'sandbox', 'hostile.js'), concurrency: 4, leaseMs: LEASE_MS, retryMs: 20 };
/** What each kind of task ends as: done with its result, or dead with an error whose first line matches. */
const HOSTILE: Record<string, RegExp> = {
  deep: /^ValidationError: result(\[0\]){100}: is nested deeper than the limit/,
  list: /^ValidationError: result(\.next){100}: is nested deeper than the limit/,
  cyclic: /^ValidationError: result\.self: is a cycle back to an enclosing value$/,
  huge: /^PayloadTooLargeError: result: result is more than \d+ bytes, over the limit of 65536 bytes$/,
  bomb: /^PayloadTooLargeError: result: result is more than \d+ bytes/,
  getter: /^ValidationError: result: could not be read: reading it threw RangeError: a getter that throws$/,
  instance: /^ValidationError: result: Point is not a plain object$/,
  function: /^ValidationError: result\.f: function cannot be carried by JSON$/,
  nan: /^ValidationError: result\.n: NaN is not a finite number$/,
  'progress-deep': /^ValidationError: progress(\[0\]){100}: is nested deeper than the limit/,
  'progress-list': /^ValidationError: progress(\.next){100}: is nested deeper than the limit/,
  'progress-cyclic': /^ValidationError: progress\.self: is a cycle/,
  'progress-getter': /^ValidationError: progress: could not be read: reading it threw RangeError: a getter that throws$/,
  'throw-deep': /^\[object Array\]$/,
  'log-deep': /^ValidationError: value: sent by the handler's thread could not be read on the main thread/,
};
const DONE = ['normal', 'proto', 'progress-proto'];

const lab = useLab();
const children = new Set<ChildWorker>();
afterAll(async () => {
  await Promise.all([...children].map((c) => c.kill()));
});

async function spawn(): Promise<ChildWorker> {
  const config: SandboxChildConfig = { ...lab.childConfig(), sandbox: SANDBOX };
  const compiled = childModule(CHILD);
  const proc = fork(compiled.module, [JSON.stringify(config)], { cwd: ROOT, execArgv: compiled.execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const child = new ChildWorker(proc, config);
  children.add(child);
  await ready(proc);
  return child;
}

/** Two thirds normal tasks, the rest of every hostile kind in turn, shuffled; each takes 50–300 ms first. */
function items() {
  const kinds = Object.keys(HOSTILE);
  return Array.from({ length: TASKS }, (_, i) => {
    const name = i % 3 === 0 ? kinds[(i / 3) % kinds.length] : i % 9 === 1 ? DONE[1 + (i % 2)] : 'normal';
    // Attempts to spare for the tasks that should end done: several kills may catch one.
    const options = { name, keepResult: 600_000, maxAttempts: name in HOSTILE ? 3 : 20 };
    return { data: { label: `t19-${i}`, workMs: 50 + Math.random() * 250 }, options };
  }).sort(() => Math.random() - 0.5);
}

/** Active tasks whose holder has no live heartbeat (on the Redis clock): stranded ones, once the survivors drained. */
async function withoutLiveHolder(): Promise<string[]> {
  const k = layout(lab.prefix, lab.queue);
  const [active, held, now] = await Promise.all([lab.raw.zRange(k.active, 0, -1), lab.raw.zRange(k.held, 0, -1), lab.raw.time()]);
  const live = new Set(await lab.raw.zRangeByScore(k.workers, now.getTime(), '+inf'));
  const holder = new Map(held.map((entry) => [entry.slice(entry.lastIndexOf('|') + 1), entry.slice(0, entry.lastIndexOf('|'))]));
  return active.filter((id) => !live.has(holder.get(id) ?? ''));
}

it('settles every attempt of sandboxed workers that are SIGKILLed while their handlers return hostile values', async () => {
  const started = Date.now();
  const crew = await Promise.all(Array.from({ length: WORKERS }, () => spawn()));
  const s = await lab.scheduler();
  const puts = items();
  const hashes = await s.putMany(puts);
  await lab.history.track(
    puts.map((p) => p.data.label),
    Promise.resolve(hashes),
  );
  const violations: string[] = [];
  const respawned: Array<Promise<void>> = [];
  let leftAtLastKill = 0;
  // Kills spread over the run: each once the tasks left to run fall to a random mark in 20–90%.
  const marks = Array.from({ length: KILLS }, () => Math.floor(TASKS * (0.2 + Math.random() * 0.7))).sort((a, b) => b - a);
  for (const [i, mark] of marks.entries()) {
    await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) <= mark, 30_000);
    // A worker that is up: one respawned a moment ago may still be starting.
    while (crew.length === 0) await sleep(20);
    const victim = crew.splice(Math.floor(Math.random() * crew.length), 1)[0];
    await victim.kill();
    leftAtLastKill = await pending(lab.raw, lab.prefix, lab.queue);
    respawned.push(spawn().then((child) => void crew.push(child)));
    if (i % 2 === 1) violations.push(...(await checkInvariants(lab.raw, lab.prefix, lab.queue)));
  }
  const lastKillAt = Date.now();
  await Promise.all(respawned);
  // The killed workers' leases lapse (heartbeat recovery, 2–2.5 s) and the survivors drain.
  await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) === 0, LEASE_MS + 25_000);
  const drainMs = Date.now() - lastKillAt;
  violations.push(...(await checkInvariants(lab.raw, lab.prefix, lab.queue)));
  expect(await lab.raw.zCard(layout(lab.prefix, lab.queue).active)).toBe(0);
  expect(await withoutLiveHolder()).toEqual([]);

  const wrong: string[] = [];
  const ended = { done: 0, dead: 0, typed: 0 };
  for (const [i, put] of puts.entries()) {
    const outcome = await s.result(hashes[i].hash);
    const name = put.options.name;
    if (outcome?.state === 'done') ended.done++;
    if (outcome?.state === 'dead') ended.dead++;
    if (DONE.includes(name)) {
      const expected = name === 'proto' ? '{"__proto__":{"a":1},"b":2}' : JSON.stringify({ label: put.data.label });
      const ok = outcome?.state === 'done' && JSON.stringify(outcome.result) === expected;
      if (!ok) wrong.push(`${name} ${put.data.label}: ${JSON.stringify(outcome)}`);
    } else if (outcome?.state !== 'dead') wrong.push(`${name} ${put.data.label}: ${JSON.stringify(outcome)}`);
    // A hostile task's last attempt may have been cut by a kill (its lease lapsed): any error then.
    else if (HOSTILE[name].test(outcome.error?.split('\n')[0] ?? '')) ended.typed++;
  }
  // The handlers run in threads, which write no oracle records: the kept outcomes are the evidence.
  const line = Object.entries({ tasks: TASKS, kills: KILLS, ...ended, leftAtLastKill, drainAfterLastKillMs: drainMs, wallMs: Date.now() - started });
  console.log(`[T19] ${line.map(([k, v]) => `${k}=${v}`).join(' ')}`);
  expect(wrong).toEqual([]);
  expect(ended.done + ended.dead).toBe(TASKS);
  // Nearly all hostile tasks ended by their own typed error, not by a kill.
  expect(ended.typed).toBeGreaterThanOrEqual(ended.dead - KILLS * SANDBOX.concurrency);
  expect(violations).toEqual([]);
  await Promise.all(crew.map((c) => c.close()));
}, 90_000);
