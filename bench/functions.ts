/**
 * What one operation call costs Redis (issue 42): the time Redis spends in docket's script or
 * function calls, from INFO commandstats (`usec` per call of EVALSHA, EVAL, FCALL and FCALL_RO
 * together), so the client's speed does not enter. On a throwaway redis-server, one scheduler:
 *
 * - a claim that finds nothing (an empty queue), 5,000 calls one after another;
 * - a put of one task, 5,000 calls one after another;
 * - a putMany of 20,000 tasks (calls of 250);
 * - a drain of those 20,000 at concurrency 32 (claim calls that carry acks and lease tasks).
 *
 * The same file runs on an older checkout (where every call was an EVALSHA) for the before column:
 * it uses the public API only. `npm run bench:functions`; docs/performance.md#redis-functions.
 */
import { cpus } from 'node:os';
import { createClient } from 'redis';
import { createScheduler } from '../lib';
import { startRedis } from '../__tests__/support/redis-server';

const CALLS = 5_000;
const TASKS = 20_000;

type Admin = ReturnType<typeof createClient>;

/** Calls and usec of docket's operation calls since the last CONFIG RESETSTAT. */
async function callStats(admin: Admin): Promise<{ calls: number; usec: number }> {
  const info = await admin.info('commandstats');
  let calls = 0;
  let usec = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval|fcall|fcall_ro):calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(m[1]);
    usec += Number(m[2]);
  }
  return { calls, usec };
}

/** Runs `work` and answers Redis's µs per operation call it made. */
async function measured(admin: Admin, work: () => Promise<void>): Promise<{ perCall: number; calls: number }> {
  await admin.sendCommand(['CONFIG', 'RESETSTAT']);
  await work();
  const { calls, usec } = await callStats(admin);
  return { perCall: usec / calls, calls };
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const admin = createClient({ url: redis.url });
  await admin.connect();
  const rows: string[] = [];
  const add = (label: string, r: { perCall: number; calls: number }) => rows.push(`| ${label} | ${r.perCall.toFixed(1)} | ${r.calls} |`);
  try {
    const s = await createScheduler({ url: redis.url, queue: 'bench', warnings: { aof: false } });
    // Warm: the first calls load the code (a library, or scripts) and the JIT.
    for (let i = 0; i < 200; i++) await s.claim();
    for (let i = 0; i < 200; i++) await s.put({ warm: i });
    await s.obliterate({ queue: 'bench', force: true });
    add(
      'claim that finds nothing',
      await measured(admin, async () => {
        for (let i = 0; i < CALLS; i++) await s.claim();
      }),
    );
    add(
      'put of one task',
      await measured(admin, async () => {
        for (let i = 0; i < CALLS; i++) await s.put({ one: i });
      }),
    );
    await s.obliterate({ queue: 'bench', force: true });
    add(
      'putMany, 250 tasks a call',
      await measured(admin, async () => {
        for (let i = 0; i < TASKS; i += 1000) await s.putMany(Array.from({ length: 1000 }, (_, k) => ({ data: { n: i + k } })));
      }),
    );
    add(
      'drain at concurrency 32 (claims with acks)',
      await measured(admin, async () => {
        let done = 0;
        await new Promise<void>((resolve) => {
          const worker = s.work(
            async () => {
              if (++done === TASKS) setImmediate(() => void worker.close().then(resolve));
            },
            { concurrency: 32 },
          );
        });
      }),
    );
    await s.close();
    console.log(
      [
        `Redis time per operation call (µs, INFO commandstats: EVALSHA, EVAL, FCALL and FCALL_RO); ${cpus().length} cores, Node ${process.version}`,
        '',
        '| Call | µs per call | calls |',
        '| --- | --- | --- |',
        ...rows,
      ].join('\n'),
    );
  } finally {
    await admin.quit();
    await redis.stop();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
