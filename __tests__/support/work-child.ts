/**
 * A worker process for tests that must survive a hang (schedules-record.test.ts): works the
 * default queue and prints `ran <data>` on stdout for each task it runs (one whose data is
 * `{ hang: true }` then never ends: heartbeat.test.ts SIGKILLs its holder). A test that expects a
 * line watches for it with a deadline and kills the child either way, so a process whose event
 * loop never turns fails the test instead of hanging jest.
 */
import { createScheduler } from '../../lib';

async function main(): Promise<void> {
  const [url, prefix] = process.argv.slice(2);
  const scheduler = await createScheduler({ url, prefix, warnings: { aof: false } }); // the test server runs without AOF on purpose
  scheduler.work(async (task) => {
    process.stdout.write(`ran ${JSON.stringify(task.data)}\n`);
    // A task that asks to hang holds its worker until the test kills it.
    if ((task.data as { hang?: boolean } | null)?.hang === true) await new Promise(() => {});
  });
  process.stdout.write('ready\n');
}

void main();
