/**
 * A batch worker process for the SIGKILL test (batch.test.ts): works the default queue in batches
 * of up to `size`, with a long lease and a 200 ms heartbeat, prints each batch's hashes on stdout
 * when its handler starts, and never finishes one: the test kills it mid-batch.
 */
import { createScheduler } from '../../lib';

async function main(): Promise<void> {
  const [url, prefix, size] = process.argv.slice(2);
  const scheduler = await createScheduler({ url, prefix, warnings: { aof: false } }); // the test server runs without AOF on purpose (and no marker key is left for the day)
  scheduler.workBatch(
    async (tasks) => {
      process.stdout.write(`batch ${tasks.map((t) => t.hash).join(',')}\n`);
      await new Promise(() => {}); // mid-batch for ever
    },
    { size: Number(size), wait: 2000, heartbeatInterval: 200, lease: 60_000 },
  );
  process.stdout.write('ready\n');
}

void main();
