/**
 * A worker process for tests that must survive a hang (schedules-record.test.ts): works the
 * default queue and prints `ran <data>` on stdout for each task it runs. A test that expects a
 * line watches for it with a deadline and kills the child either way, so a process whose event
 * loop never turns fails the test instead of hanging jest.
 */
import { createScheduler } from '../../lib';

async function main(): Promise<void> {
  const [url, prefix] = process.argv.slice(2);
  const scheduler = await createScheduler({ url, prefix, warnings: { aof: false } }); // the test server runs without AOF on purpose
  scheduler.work(async (task) => void process.stdout.write(`ran ${JSON.stringify(task.data)}\n`));
  process.stdout.write('ready\n');
}

void main();
