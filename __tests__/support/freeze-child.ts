/**
 * A process for the close-during-a-freeze test. It opens a scheduler, starts a worker whose
 * handler never settles (and, in mode `busy`, puts a task for it), and says `ready`. On `close` (an IPC message) it closes the worker and
 * the scheduler, and says how long that took. On `finish` it says which resources the process still
 * holds and drops its IPC channel: with nothing left behind, the process then exits by itself.
 */
import { createScheduler } from '../../lib';

async function main(): Promise<void> {
  const [url, prefix, commandTimeout, shutdownTimeout, mode = 'busy'] = process.argv.slice(2);
  const scheduler = await createScheduler({ url, prefix, commandTimeout: Number(commandTimeout), warnings: { aof: false } });
  const errors: string[] = [];
  const worker = scheduler.work(() => new Promise<void>(() => {}), {
    shutdownTimeout: Number(shutdownTimeout),
    onError: (err) => errors.push((err as Error).name),
  });
  // Idle: no task, so the worker waits in BLPOP with its claim behind it.
  if (mode === 'busy') await scheduler.put('held for ever');
  const send = (message: unknown) => process.send!(message);
  process.on('message', async (message) => {
    if (message === 'close') {
      const started = Date.now();
      await worker.close();
      const workerMs = Date.now() - started;
      await scheduler.close();
      send({ closed: { workerMs, totalMs: Date.now() - started } });
    } else if (message === 'finish') {
      const errorsAfterClose = errors.length;
      // After a pause, and off the timer's own callback (a running timer counts as active).
      setTimeout(
        () =>
          setImmediate(() => {
            // Timers and sockets the process holds, less its IPC pipe and stdio.
            const held = process.getActiveResourcesInfo().filter((r) => r !== 'PipeWrap' && r !== 'TTYWrap');
            send({ held, lateErrors: errors.length - errorsAfterClose });
            process.disconnect();
          }),
        200,
      );
    }
  });
  send('ready');
}

void main();
