/**
 * A worker process for the cross-process cancel test: works the default queue with a long lease
 * and a 200 ms heartbeat, reports on stdout when a handler starts, and, once the handler's signal
 * aborts, the reason's name and code.
 */
import { createScheduler, DocketError } from '../../lib';

async function main(): Promise<void> {
  const [url, prefix] = process.argv.slice(2);
  const scheduler = await createScheduler({ url, prefix, warnings: { aof: false } }); // the test server runs without AOF on purpose (and no marker key is left for the day)
  scheduler.work(
    async (task, signal) => {
      process.stdout.write(`started ${task.hash}\n`);
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      const reason: unknown = signal.reason;
      process.stdout.write(`aborted ${reason instanceof DocketError ? `${reason.name} ${reason.code}` : String(reason)}\n`);
      throw reason;
    },
    { heartbeatInterval: 200, lease: 60_000 },
  );
  process.stdout.write('ready\n');
}

void main();
