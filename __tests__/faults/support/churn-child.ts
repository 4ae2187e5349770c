/**
 * A churn process for the fault scenarios, forked by churn.ts with ts-node: it opens and closes
 * schedulers in a loop, for as long as the parent lets it, and must never exit on its own.
 *
 * Each cycle creates a scheduler, starts a worker on it with `work()` (two cycles in three; the
 * third only puts), puts a few tasks now and then, and after a random life closes it: the worker
 * first and then the scheduler, or the scheduler alone (which closes its worker). A `close-now` message from the parent ends the
 * current life at once, so that the parent can make a close land while Redis is frozen.
 *
 * Every put is reported before it is sent (`putting`) and when it settles (`put`), so the parent
 * can track it in its History. Each cycle is reported with how long its opening and each close
 * took, what `work()` reported after `close()` had resolved, and the timers and sockets the
 * process still held a second after the close that it did not hold before the cycle began:
 * after `close()`, docket must hold none (issue 21).
 *
 * The handler is worker-child.ts's: it writes its execution to the oracle before it returns. One
 * run in `hangRate` never settles and ignores its signal, so that closes also meet a handler
 * that outlives the shutdown timeout (its task is handed back, or its lease lapses).
 */
import { createClient, type RedisClientType } from 'redis';
import { createScheduler, DocketError, type Scheduler, type Worker } from '../../../lib';
import { oracleKeys, type Execution } from './oracle';
import { wireError, type WireError } from './workers';

/** What a churn process does; sent to it as JSON in argv. */
export interface ChurnConfig {
  url: string;
  prefix: string;
  queue: string;
  oracleUrl: string;
  run: string;
  /** Starts every label this process puts, so labels stay unique across processes. */
  name: string;
  commandTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** A scheduler lives a uniform random time in [min, max] ms, unless `close-now` cuts it short. */
  lifeMs: [number, number];
  concurrency: number;
  leaseMs: number;
  workMs: [number, number];
  /** Share of handler runs that never settle. */
  hangRate: number;
}

/** How one close() call went. */
export interface CloseRecord {
  what: 'worker' | 'scheduler';
  /** When the call began (epoch ms), so the parent can tell whether Redis was frozen then. */
  at: number;
  ms: number;
  error?: WireError;
}

/** One scheduler's life, from createScheduler to the end of its close. */
export interface CycleReport {
  openMs: number;
  /** Set when createScheduler rejected; then nothing else happened in the cycle. */
  openError?: WireError;
  closes: CloseRecord[];
  /** Resource types (process.getActiveResourcesInfo) held after close() beyond those held before the cycle. */
  leaked: string[];
  /** onError calls, so far in this process, of workers whose scheduler's close() had resolved. */
  errorsAfterClose: number;
}

export type ChurnMessage =
  | { type: 'ready' }
  | { type: 'putting'; labels: string[] }
  | { type: 'put'; labels: string[]; hashes?: string[]; error?: WireError }
  | { type: 'cycle'; cycle: CycleReport }
  | { type: 'stopped' };

export type ChurnRequest = { type: 'close-now' } | { type: 'stop' };

const config = JSON.parse(process.argv[2]) as ChurnConfig;
const keys = oracleKeys(config.run);
/** How long a closed socket may take to be gone. */
const LEAK_GRACE_MS = 1000;
const uniform = ([min, max]: [number, number]) => min + Math.random() * (max - min);
let stopping = false;
/** Set while a scheduler lives; a `close-now` that comes outside a life cuts the next one short. */
let living = false;
let closeRequested = false;
/** Ends the current wait (a life, or the pause between lives) at once. */
let wake: () => void = () => {};
let putCount = 0;
/** onError calls of workers whose scheduler had already closed, over the whole process. */
let errorsAfterClose = 0;

async function main(): Promise<void> {
  // Node opens the stdio pipes on first use: opened here, a first warning written within a cycle
  // is not taken for a handle that cycle leaked.
  void process.stdout;
  void process.stderr;
  const oracle = createClient({ url: config.oracleUrl }) as RedisClientType;
  oracle.on('error', () => {});
  await oracle.connect();
  process.on('message', (msg: ChurnRequest) => {
    if (msg.type === 'stop') stopping = true;
    if (msg.type === 'close-now' && !living) closeRequested = true;
    else wake();
  });
  // The parent (the jest process) is gone: leave no orphan behind.
  process.on('disconnect', () => process.exit(1));
  send({ type: 'ready' });
  while (!stopping) {
    send({ type: 'cycle', cycle: await cycle(oracle) });
    if (!stopping) await wait(uniform([50, 300]));
  }
  await oracle.quit();
  process.removeAllListeners('disconnect');
  process.send?.({ type: 'stopped' } satisfies ChurnMessage, () => process.exit(0));
}

/** Resolves after `ms`, or sooner on wake(). */
function wait(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      wake = () => {};
      resolve();
    }
    wake = done;
  });
}

/** A scheduler's life: a random time, cut short by `close-now` or `stop`. */
async function live(): Promise<void> {
  living = true;
  if (!closeRequested && !stopping) await wait(uniform(config.lifeMs));
  living = false;
  closeRequested = false;
}

async function cycle(oracle: RedisClientType): Promise<CycleReport> {
  const before = resources();
  const opening = Date.now();
  let scheduler: Scheduler;
  try {
    const { url, prefix, queue, commandTimeoutMs } = config;
    scheduler = await createScheduler({ url, prefix, queue, commandTimeout: commandTimeoutMs, onWarning: () => {} });
  } catch (err) {
    // A failed start must leave nothing behind either.
    const openMs = Date.now() - opening;
    return { openMs, openError: describe(err), closes: [], leaked: await leftBehind(before), errorsAfterClose };
  }
  const openMs = Date.now() - opening;
  let closed = false;
  // One scheduler in three only puts: its close() then only ends the connection.
  const worker =
    Math.random() < 1 / 3
      ? null
      : scheduler.work((task) => handle(oracle, task), {
          concurrency: config.concurrency,
          lease: config.leaseMs,
          shutdownTimeout: config.shutdownTimeoutMs,
          onError: () => void (closed && errorsAfterClose++),
        });
  let alive = true;
  const life = live().then(() => void (alive = false));
  const putting = putLoop(scheduler, () => alive);
  await life;
  const closes = await closeAtRandom(scheduler, worker);
  closed = true;
  // A put still in flight settles by its own deadline (or as the close refused it).
  await putting;
  return { openMs, closes, leaked: await leftBehind(before), errorsAfterClose };
}

/**
 * What the process holds beyond `before`, once what is closing has had LEAK_GRACE_MS to finish:
 * a socket being destroyed is released on a later turn of the event loop.
 */
async function leftBehind(before: Map<string, number>): Promise<string[]> {
  const end = Date.now() + LEAK_GRACE_MS;
  let left = grown(before, resources());
  while (left.length > 0 && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = grown(before, resources());
  }
  return left;
}

/** Puts 1–5 tasks every 50–500 ms while the scheduler lives; one call at a time. */
async function putLoop(scheduler: Scheduler, alive: () => boolean): Promise<void> {
  while (alive()) {
    const labels = Array.from({ length: 1 + Math.floor(Math.random() * 5) }, () => `${config.name}-${putCount++}`);
    send({ type: 'putting', labels });
    try {
      const results = await scheduler.putMany(labels.map((label) => ({ data: { label }, options: { maxAttempts: 50 } })));
      send({ type: 'put', labels, hashes: results.map((r) => r.hash) });
    } catch (err) {
      send({ type: 'put', labels, error: describe(err) });
    }
    if (alive()) await new Promise((resolve) => setTimeout(resolve, uniform([50, 500])));
  }
}

/** Closes the worker and then the scheduler, or the scheduler alone; times each close. */
async function closeAtRandom(scheduler: Scheduler, worker: Worker | null): Promise<CloseRecord[]> {
  const closes: CloseRecord[] = [];
  if (worker && Math.random() < 0.5) closes.push(await timed('worker', () => worker.close()));
  closes.push(await timed('scheduler', () => scheduler.close()));
  return closes;
}

async function timed(what: CloseRecord['what'], close: () => Promise<void>): Promise<CloseRecord> {
  const started = Date.now();
  try {
    await close();
    return { what, at: started, ms: Date.now() - started };
  } catch (err) {
    return { what, at: started, ms: Date.now() - started, error: describe(err) };
  }
}

type Task = Parameters<Parameters<Scheduler['work']>[0]>[0];

async function handle(oracle: RedisClientType, task: Task): Promise<void> {
  // Never settles, and holds no timer of its own: whatever is left after close() is docket's.
  if (Math.random() < config.hangRate) return new Promise<void>(() => {});
  await new Promise((resolve) => setTimeout(resolve, uniform(config.workMs)));
  const label = String((task.data as { label?: unknown } | null)?.label ?? '');
  const record: Execution = { hash: task.hash, label, pid: process.pid, attempt: task.attempt, runAt: task.runAt };
  await oracle.multi().rPush(keys.execs, JSON.stringify(record)).incr(keys.count).exec();
}

/** How many resources of each type keep the event loop alive. */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** The types held more often after than before, one entry per extra resource. */
function grown(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].flatMap(([type, n]) => Array<string>(Math.max(0, n - (before.get(type) ?? 0))).fill(type));
}

function describe(err: unknown): WireError {
  return wireError(err, err instanceof DocketError);
}

function send(msg: ChurnMessage): void {
  process.send?.(msg);
}

main().catch((err) => {
  console.error('churn-child failed:', err);
  process.exit(1);
});
