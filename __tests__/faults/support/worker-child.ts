/**
 * A worker (or producer) process for the fault scenarios, forked by workers.ts with ts-node. Being
 * a real process, it can be SIGKILLed mid-task or SIGSTOPped, which no in-process worker allows.
 *
 * It creates one scheduler. With `work` in its config it runs scheduler.work(), and its handler
 * writes each execution to the oracle Redis before it returns, so before the ack: a kill between
 * the two shows up as a duplicate, never as a silent loss. It reports work()'s onError calls and
 * aborted handler signals to the oracle too. A handler whose lease was lost still finishes (and
 * so acks late), unless its payload says `onAbort: 'throw'` (then it fails late). A payload's
 * `workMs` sets its handler's duration; its `failP` the chance that an attempt throws once its
 * work is done, before it records its execution (a failure, not a run).
 *
 * Over IPC it answers `put` (putMany on its scheduler), `now` (its Date.now), `heap` (heap used
 * after a GC) and `close`.
 *
 * With `clockShiftMs`, Date.now is shifted before lib is loaded: the clock-skew scenario.
 */
import { createClient, type RedisClientType } from 'redis';
import { oracleKeys, type Execution, type Progressed, type Retried, type WorkerEvent } from './oracle';
import { wireError, type ChildConfig, type ChildReply, type ChildRequest, type WireError } from './workers';

type Lib = typeof import('../../../lib');
type Scheduler = Awaited<ReturnType<Lib['createScheduler']>>;
type Task = Parameters<Parameters<Scheduler['work']>[0]>[0];

const config = JSON.parse(process.argv[2]) as ChildConfig;
const keys = oracleKeys(config.run);

async function main(): Promise<void> {
  if (config.clockShiftMs) {
    const realNow = Date.now.bind(Date);
    Date.now = () => realNow() + config.clockShiftMs!;
  }
  // Loaded only now, so that everything lib does sees the shifted clock.
  const lib: Lib = await import('../../../lib');
  const oracle = await connect(config.oracleUrl);
  const scheduler = await lib.createScheduler({
    url: config.url,
    prefix: config.prefix,
    queue: config.queue,
    commandTimeout: config.commandTimeoutMs,
    onWarning: () => {}, // the scenario's throwaway Redis runs without AOF on purpose
  });
  const worker = config.work ? await startWork(lib, scheduler, oracle) : null;
  process.on(
    'message',
    (msg: ChildRequest) =>
      void answer(msg, scheduler, lib, async () => {
        await worker?.close();
        await scheduler.close();
        await oracle.quit();
      }),
  );
  // The parent (the jest process) is gone: leave no orphan behind.
  process.on('disconnect', () => process.exit(1));
  send({ type: 'ready' });
}

async function connect(url: string): Promise<RedisClientType> {
  const client = createClient({ url }) as RedisClientType;
  client.on('error', () => {});
  await client.connect();
  return client;
}

async function startWork(lib: Lib, scheduler: Scheduler, oracle: RedisClientType) {
  const work = config.work!;
  // The queue's own Redis clock, read on a connection apart from the scheduler's.
  const clock = work.readServerTime ? await connect(config.url) : null;
  const event = (e: Omit<WorkerEvent, 'pid'>) => void oracle.rPush(keys.events, JSON.stringify({ ...e, pid: process.pid }));
  const handler = async (task: Task, signal: AbortSignal) => {
    const serverNow = clock ? await redisTime(clock) : undefined;
    const record: Execution = {
      hash: task.hash,
      label: labelOf(task.data),
      pid: process.pid,
      attempt: task.attempt,
      runAt: task.runAt,
      serverNow,
      claimedAt: task.leaseUntil - work.leaseMs,
    };
    signal.addEventListener('abort', () => event({ kind: 'abort', hash: task.hash, ...describe(lib, signal.reason) }), { once: true });
    if (work.recordStarts) await oracle.rPush(keys.starts, JSON.stringify(record));
    if (work.outcomes) await reportStart(scheduler, oracle, task);
    // The work ignores the signal on purpose: a late finisher is what fencing must cope with.
    const ms = workTime(task.data, work.workMs);
    // A payload may ask its first attempt to block the event loop (synchronous work: no heartbeat
    // meanwhile); a re-delivery runs normally, so the two workers do not take turns blocking.
    const block = (task.data as { blockMs?: unknown } | null)?.blockMs;
    if (typeof block === 'number' && task.attempt === 1) for (const until = Date.now() + block; Date.now() < until;);
    const steps = work.outcomes ? setInterval(() => void task.progress({ attempt: task.attempt, step: 1 }), 3) : null;
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (steps) clearInterval(steps);
    const failP = (task.data as { failP?: unknown } | null)?.failP;
    if (typeof failP === 'number' && Math.random() < failP) throw new Error('random failure');
    if (clock) record.finishedAt = await redisTime(clock);
    await oracle.multi().rPush(keys.execs, JSON.stringify(record)).incr(keys.count).exec();
    // A payload may ask to fail once its lease is lost, so that the late call is a fail, not an ack.
    if (signal.aborted && (task.data as { onAbort?: string } | null)?.onAbort === 'throw') throw signal.reason;
    return work.outcomes ? { label: record.label } : undefined;
  };
  return scheduler.work(handler, {
    queue: config.queue,
    concurrency: work.concurrency,
    lease: work.leaseMs,
    heartbeatDeadline: work.heartbeatDeadlineMs,
    ...(work.backoffMs === undefined ? {} : { backoff: () => work.backoffMs! }),
    onError: (err) => event({ kind: 'error', hash: (err as { hash?: string }).hash, ...describe(lib, err) }),
  });
}

/**
 * A re-delivery first notes what it sees of the earlier attempts' progress; then every attempt
 * stores its own, and notes it once Redis has it (a kill between the two only loses the note).
 */
async function reportStart(scheduler: Scheduler, oracle: RedisClientType, task: Task): Promise<void> {
  if (task.attempt > 1) {
    const info = await scheduler.get(task.hash);
    const retried: Retried = { hash: task.hash, attempt: task.attempt, progress: (info?.progress ?? null) as Retried['progress'] };
    await oracle.rPush(keys.retried, JSON.stringify(retried));
  }
  if (await task.progress({ attempt: task.attempt, step: 0 })) {
    await oracle.rPush(keys.progressed, JSON.stringify({ hash: task.hash, attempt: task.attempt } satisfies Progressed));
  }
}

async function answer(msg: ChildRequest, scheduler: Scheduler, lib: Lib, close: () => Promise<void>): Promise<void> {
  try {
    if (msg.type === 'put') send({ type: 'reply', id: msg.id, value: await scheduler.putMany(msg.items) });
    if (msg.type === 'now') send({ type: 'reply', id: msg.id, value: Date.now() });
    if (msg.type === 'heap') {
      global.gc?.();
      send({ type: 'reply', id: msg.id, value: process.memoryUsage().heapUsed });
    }
    if (msg.type === 'close') {
      await close();
      // Exit once the reply is out; the parent waits for both.
      process.removeAllListeners('disconnect');
      process.send?.({ type: 'reply', id: msg.id, value: null } satisfies ChildReply, () => process.exit(0));
    }
  } catch (err) {
    send({ type: 'reply', id: msg.id, error: describe(lib, err) });
  }
}

/** An error as plain data for IPC, saying whether it is one of docket's typed errors. */
function describe(lib: Lib, err: unknown): WireError {
  return wireError(err, err instanceof lib.DocketError);
}

async function redisTime(client: RedisClientType): Promise<number> {
  const [seconds, micros] = await client.sendCommand<[string, string]>(['TIME']);
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

function labelOf(data: unknown): string {
  return String((data as { label?: unknown } | null)?.label ?? '');
}

/** The payload's own `workMs` if it has one, else uniform in the configured range. */
function workTime(data: unknown, [min, max]: [number, number]): number {
  const own = (data as { workMs?: unknown } | null)?.workMs;
  return typeof own === 'number' ? own : min + Math.random() * (max - min);
}

function send(reply: ChildReply): void {
  process.send?.(reply);
}

main().catch((err) => {
  console.error('worker-child failed to start:', err);
  process.exit(1);
});
