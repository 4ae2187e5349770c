/**
 * The run's signal (issue 43): every handler gets it, whatever it declares, as its second
 * parameter and as `task.signal`, and it aborts when work() stops the attempt (a cancel, the run
 * timeout, close()). It is made only when used: a handler that touches neither makes none.
 */
import { CancelledError, ClosedError, RunTimeoutError, type BatchTask, type Scheduler, type Task } from '../lib';
import { eventually, useRedis } from './support/harness';

const redis = useRedis();

/** Resolves with the signal's reason once it aborts. */
function abortOf(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

type Stop = 'cancel' | 'timeout' | 'close';
const STOPS: Record<Stop, new (...args: never[]) => Error> = { cancel: CancelledError, timeout: RunTimeoutError, close: ClosedError };

/** Each handler shape, as users write them (each declares one parameter): it says it started, then records the reason its signal aborted with. */
const SHAPES = {
  'a default second parameter':
    (seen: unknown[], started: () => void) =>
    async (_task: Task, signal: AbortSignal | undefined = undefined) => {
      started();
      seen.push(await abortOf(signal!));
    },
  'task.signal': (seen: unknown[], started: () => void) => async (task: Task) => {
    started();
    seen.push(await abortOf(task.signal));
  },
  'arguments[1]': (seen: unknown[], started: () => void) =>
    function (_task: Task) {
      started();
      // eslint-disable-next-line prefer-rest-params
      return abortOf(arguments[1] as AbortSignal).then((reason) => void seen.push(reason));
    },
};

/** Puts one task, waits for its handler to start, stops it the way `stop` says, then closes the worker. */
async function stopOne(s: Scheduler, stop: Stop, start: (started: () => void) => { close(options?: { timeout?: number }): Promise<void> }): Promise<void> {
  let began = false;
  const worker = start(() => (began = true));
  const { hash } = await s.put({ stop }, stop === 'timeout' ? { timeout: 150 } : {});
  await eventually(() => began, 5000);
  if (stop === 'cancel') await s.cancel(hash, { running: true });
  if (stop === 'close') await worker.close({ timeout: 100 });
  else await eventually(async () => (await s.get(hash))?.state !== 'active', 5000);
  await worker.close({ timeout: 100 });
}

describe("a handler's signal", () => {
  for (const [shape, make] of Object.entries(SHAPES)) {
    for (const stop of Object.keys(STOPS) as Stop[]) {
      it(`aborts for ${shape} on ${stop}, though the handler declares one parameter`, async () => {
        const s = await redis.scheduler();
        const seen: unknown[] = [];
        await stopOne(s, stop, (started) => {
          const handler = make(seen, started);
          expect(handler.length).toBe(1);
          return s.work(handler);
        });
        await eventually(() => seen.length === 1, 5000);
        expect(seen[0]).toBeInstanceOf(STOPS[stop]);
      });
    }
  }

  for (const stop of Object.keys(STOPS) as Stop[]) {
    it(`aborts for a batch handler on ${stop}: each task's, then the batch's`, async () => {
      const s = await redis.scheduler();
      const seen: unknown[] = [];
      await stopOne(s, stop, (started) =>
        s.workBatch(async (tasks: BatchTask[], signal: AbortSignal) => {
          started();
          seen.push(...(await Promise.all([abortOf(tasks[0].signal), abortOf(signal)])));
        }),
      );
      await eventually(() => seen.length === 2, 5000);
      expect(seen[0]).toBeInstanceOf(STOPS[stop]);
      expect(seen[1]).toBe(seen[0]);
    });
  }
});

describe('a signal nobody reads', () => {
  const Real = globalThis.AbortController;
  let made = 0;
  beforeAll(() => {
    // Counts every AbortController made in this file's realm: lib makes a signal through one.
    globalThis.AbortController = class extends Real {
      constructor() {
        super();
        made++;
      }
    };
  });
  afterAll(() => void (globalThis.AbortController = Real));

  it('is not made for a handler that reads neither its parameter nor task.signal, and is for one that reads it', async () => {
    const s = await redis.scheduler();
    const run = async (handler: (task: Task) => Promise<void>, queue: string): Promise<number> => {
      await s.putMany(Array.from({ length: 20 }, (_, i) => ({ data: i, options: { queue } })));
      const before = made;
      let done = 0;
      const worker = s.work(async (task: Task) => void (await handler(task), done++), { queue, concurrency: 4 });
      await eventually(() => done === 20, 5000);
      await worker.close();
      return made - before;
    };
    expect(await run(async (task) => void task.data, 'none')).toBe(0);
    expect(await run(async (task) => void task.signal.aborted, 'read')).toBe(20);
  });
});
