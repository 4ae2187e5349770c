/**
 * close() leaves nothing behind: no timer, socket or listener that keeps the process alive or
 * throws later, even when Redis is frozen while it closes; and it settles within a stated bound.
 */
import { fork } from 'node:child_process';
import { getEventListeners } from 'node:events';
import path from 'node:path';
import { childModule } from './support/children';
import { eventually, sleep, useRedis } from './support/harness';
import { startRedis } from './support/redis-server';

const redis = useRedis();

/** Resources of this (jest) process that docket could leave behind. */
function held(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) if (r === 'Timeout' || r === 'TCPSocketWrap') counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

/**
 * Waits until this process holds no more timers and sockets than `before`. Jest's own come and
 * go, and a destroyed socket is released a turn or two later; a leaked interval stays for good.
 */
async function settlesBackTo(before: Record<string, number>): Promise<void> {
  const within = () => Object.entries(held()).every(([kind, n]) => n <= (before[kind] ?? 0));
  await eventually(within, 3000).catch(() => {
    throw new Error(`still held after close: ${JSON.stringify(held())}, before: ${JSON.stringify(before)}`);
  });
}

describe('close', () => {
  it('leaves no timer, socket or listener behind from workers, signals, events and schedules', async () => {
    const before = held();
    const sigterms = process.listenerCount('SIGTERM');
    const controller = new AbortController();
    const s = await redis.scheduler();
    const worker = s.work(async () => {}, { handleSignals: true, signal: controller.signal });
    await s.every('tick', 200, { tick: true });
    const events = s.events();
    const next = events.next();
    await s.put('one');
    await next;
    await sleep(100); // the events reader is blocked in XREAD again
    await worker.close();
    await s.close();
    await sleep(100);
    expect(process.listenerCount('SIGTERM')).toBe(sigterms);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await settlesBackTo(before);
  });

  it('leaves no timer or socket behind after handing back a task whose handler never settles', async () => {
    const before = held();
    const s = await redis.scheduler();
    const errors: unknown[] = [];
    const worker = s.work(() => new Promise<void>(() => {}), { lease: 300, onError: (err) => errors.push(err) });
    const { hash } = await s.put('never settles');
    await eventually(async () => (await s.get(hash))?.state === 'active');
    await sleep(250); // the lease has been extended at least once
    await worker.close({ timeout: 50 });
    expect(await s.get(hash)).toMatchObject({ state: 'ready' });
    await s.close();
    const reported = errors.length;
    await sleep(500); // more than a lease: a forgotten extension timer would have fired by now
    expect(errors).toHaveLength(reported);
    await settlesBackTo(before);
  });

  // Busy: its one slot holds a task. Idle: its claim waits behind a BLPOP, which close() must end.
  it.each(['busy', 'idle'])(
    'survives a Redis that freezes while it closes and answers afterwards, within its bound (%s)',
    async (mode) => {
      const server = await startRedis();
      const compiled = childModule(path.join(__dirname, 'support', 'freeze-child.ts'));
      const child = fork(compiled.module, [server.url, 'freeze', '1000', '500', mode], {
        execArgv: compiled.execArgv,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      // What freeze-child.ts sends: 'ready', then { closed }, then { held, lateErrors }.
      const messages: Array<'ready' | { closed?: { workerMs: number; totalMs: number }; held?: unknown[]; lateErrors?: number }> = [];
      child.on('message', (m) => messages.push(m as (typeof messages)[number]));
      const sent = (field: 'closed' | 'held') => messages.find((m) => typeof m === 'object' && m[field] !== undefined);
      const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
      try {
        await eventually(() => messages.includes('ready'), 15_000);
        await sleep(200); // the handler holds its task, or the worker waits idle
        server.signal('SIGSTOP');
        child.send('close');
        await eventually(() => sent('closed') !== undefined, 10_000);
        const closed = (sent('closed') as { closed: { workerMs: number; totalMs: number } }).closed;
        // shutdownTimeout (500) + one commandTimeout (1000) for the worker; one more for the connection.
        expect(closed.workerMs).toBeLessThan(500 + 1000 + 700);
        expect(closed.totalMs).toBeLessThan(500 + 2 * 1000 + 700);
        server.signal('SIGCONT');
        await sleep(5000); // the late replies arrive now: nothing may throw
        expect(child.exitCode).toBeNull();
        child.send('finish');
        await eventually(() => sent('held') !== undefined, 5000);
        expect(sent('held')).toEqual({ held: [], lateErrors: 0 });
        // Nothing left: without its IPC channel the process ends by itself, cleanly.
        expect(await Promise.race([exited, sleep(3000).then(() => 'still running')])).toBe(0);
      } finally {
        child.kill('SIGKILL');
        server.signal('SIGCONT');
        await server.stop();
      }
    },
    40_000,
  );
});
