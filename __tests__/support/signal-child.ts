/**
 * A worker process for the SIGTERM test: works one queue with handleSignals, reports on stdout
 * when a handler starts, and takes 300 ms per task.
 */
import { createScheduler } from '../../lib';

async function main(): Promise<void> {
  const [url, prefix] = process.argv.slice(2);
  const scheduler = await createScheduler({ url, prefix, warnings: { aof: false } }); // the test server runs without AOF on purpose (and no marker key is left for the day)
  scheduler.work(
    async () => {
      process.stdout.write('started\n');
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.stdout.write('finished\n');
    },
    { handleSignals: true },
  );
  process.stdout.write('ready\n');
}

void main();
