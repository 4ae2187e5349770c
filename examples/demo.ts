/**
 * `npm run demo`: a producer and a worker on one queue, showing de-duplication, delay, priority and
 * expiry. Uses REDIS_URL when it is set and reachable (under a throwaway key prefix, whose keys it
 * deletes at the end); otherwise it starts a redis-server of its own from PATH and stops it after.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';
import { createScheduler, type PutResult, type Scheduler, type Task } from '../lib';
import { startRedis } from '../__tests__/support/redis-server';

interface Job {
  what: string;
  [field: string]: unknown;
}

/** The worker's lease; a task's claim time on the Redis clock is its first leaseUntil minus this. */
const LEASE_MS = 10_000;
const DELAY_MS = 1500;
const EXPIRE_MS = 200;
/** How long the producer runs alone before the worker starts: longer than EXPIRE_MS. */
const WORKER_LATE_MS = 500;

const started = performance.now();
const problems: string[] = [];

function say(line: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  console.log(`${seconds.padStart(6)}s  ${line}`);
}

function expect(ok: boolean, problem: string): void {
  if (!ok) problems.push(problem);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const short = (hash: string) => `${hash.slice(0, 12)}…`;

interface DemoRedis {
  url: string;
  /** Deletes what the demo wrote, or stops the server it started. */
  close(prefix: string): Promise<void>;
}

/** REDIS_URL when it answers PING; otherwise a redis-server of our own. */
async function openRedis(): Promise<DemoRedis> {
  const url = process.env.REDIS_URL;
  if (url) {
    const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
      console.log(`Using REDIS_URL (${url}).`);
      return { url, close: (prefix) => deleteKeys(client, prefix).finally(() => client.quit()) };
    } catch (err) {
      console.log(`REDIS_URL (${url}) is unreachable (${(err as Error).message}); starting a redis-server instead.`);
      if (client.isOpen) await client.disconnect();
    }
  }
  const server = await startRedis();
  console.log(`Started redis-server (pid ${server.pid}) at ${server.url} for this demo.`);
  return {
    url: server.url,
    async close() {
      await server.stop();
      console.log(`Stopped the demo's redis-server (pid ${server.pid}).`);
    },
  };
}

/** Deletes the demo's keys (SCAN under its own prefix, never KEYS or FLUSHDB). */
async function deleteKeys(client: ReturnType<typeof createClient>, prefix: string): Promise<void> {
  const keys: string[] = [];
  for await (const key of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) keys.push(key);
  if (keys.length > 0) await client.del(keys);
  console.log(`Deleted the demo's ${keys.length} key(s) under ${prefix}:*.`);
}

/** The producer: puts every task before any worker runs. Returns the reminder's put result. */
async function produce(s: Scheduler): Promise<PutResult> {
  const first = await s.put({ what: 'welcome email', to: { name: 'Ada', email: 'ada@example.com' } });
  say(`put welcome email                      -> added: ${first.added}, hash ${short(first.hash)}`);
  const again = await s.put({ to: { email: 'ada@example.com', name: 'Ada' }, what: 'welcome email' });
  say(`put it again, keys in another order    -> added: ${again.added}, hash ${short(again.hash)}`);
  say('   (a duplicate: keys are sorted at every depth before hashing, so it is the same task)');
  expect(first.added && !again.added && again.hash === first.hash, 'the second welcome email was not a duplicate');

  for (const n of [1, 2, 3]) await s.put({ what: `report ${n}` });
  say('put report 1, report 2, report 3       -> normal tasks run in FIFO order');
  await s.put({ what: 'urgent alert' }, { priority: true });
  say('put urgent alert with priority: true   -> goes ahead of every normal task');

  const reminder = await s.put({ what: 'reminder' }, { delay: DELAY_MS });
  say(`put reminder with delay: ${DELAY_MS}          -> run-at is ${DELAY_MS} ms after now on the Redis clock`);
  await s.put({ what: 'flash sale' }, { expire: EXPIRE_MS });
  say(`put flash sale with expire: ${EXPIRE_MS}        -> dropped if nobody claims it within ${EXPIRE_MS} ms`);
  return reminder;
}

/** The worker: runs tasks one at a time until the reminder has run, then closes. */
async function consume(s: Scheduler, reminder: PutResult): Promise<string[]> {
  const ran: string[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const worker = s.work<Job>(
    async (task: Task<Job>) => {
      ran.push(task.data.what);
      if (task.hash !== reminder.hash) return say(`worker ran ${task.data.what}`);
      // claim() put the lease deadline at (Redis now + lease), so this is when it was claimed.
      const lateBy = task.leaseUntil - LEASE_MS - task.runAt;
      say(`worker ran reminder, claimed ${lateBy} ms after its run-at (Redis clock)`);
      expect(lateBy >= 0, `the reminder was claimed ${-lateBy} ms before its run-at`);
      done();
    },
    { concurrency: 1, lease: LEASE_MS, onError: (err) => say(`worker error: ${String(err)}`) },
  );
  const timeout = setTimeout(() => {
    problems.push('the worker did not finish within 6 s');
    done();
  }, 6000);
  await finished;
  clearTimeout(timeout);
  await worker.close(); // waits for the last handler and its ack
  return ran;
}

async function demo(url: string, prefix: string): Promise<void> {
  // docket warns at start-up about Redis settings that weaken its guarantees. The demo's throwaway
  // server runs without AOF on purpose (it holds nothing worth keeping), so that warning is off.
  const s = await createScheduler({ url, prefix, queue: 'demo', warnings: { aof: false } });
  try {
    console.log(`Queue "demo", key prefix "${prefix}".\n\nProducer (no worker yet):`);
    const reminder = await produce(s);

    await sleep(WORKER_LATE_MS);
    console.log(`\nWorker (starts ${WORKER_LATE_MS} ms late, concurrency 1):`);
    say(`the flash sale's ${EXPIRE_MS} ms have passed and nobody has claimed it`);
    const ran = await consume(s, reminder);
    const order = ['urgent alert', 'welcome email', 'report 1', 'report 2', 'report 3', 'reminder'];
    expect(ran.join() === order.join(), `tasks ran in this order: ${ran.join(', ')}`);

    const st = await s.stats();
    console.log('\nAfterwards:');
    say(`stats: ready ${st.ready}, delayed ${st.delayed}, active ${st.active}, dead ${st.dead}, ` + `expired ${st.expired}, deduplicated ${st.deduplicated}`);
    say('the flash sale never ran: the claim that reached it found it expired, dropped it and counted it');
    say('the welcome email ran once although it was put twice');
    expect(st.expired === 1 && !ran.includes('flash sale'), 'the flash sale was not dropped as expired');
  } finally {
    await s.close();
  }
}

async function main(): Promise<void> {
  const redis = await openRedis();
  const prefix = `demo-${randomBytes(4).toString('hex')}`;
  try {
    await demo(redis.url, prefix);
  } finally {
    await redis.close(prefix);
  }
  if (problems.length > 0) {
    console.error(`\nUnexpected:\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
