/**
 * Would Redis Functions pay (issue 32)? Redis 7.0 keeps nothing between two EVALSHA calls, so a
 * script defines every function its includes hold on every call; a Functions library defines them
 * once, at FUNCTION LOAD. This measures what that could save, on a throwaway redis-server:
 *
 * - `defs`: the claim and put scripts cut right after their includes (every function defined,
 *   nothing run), against `empty` (`return 0` behind the same K/A line), with the same 41 keys and
 *   14 arguments, each as EVALSHA and as FCALL of the same body wrapped in a registered function;
 * - for scale, a real drain: the average Redis time of one script call while 20,000 tasks are put
 *   (putMany) and then worked at concurrency 32.
 *
 * Times are Redis's own (INFO commandstats usec per call), so the client's speed does not enter.
 * `npm run bench:functions`; docs/performance.md#redis-functions has the figures and the verdict.
 */
import { cpus } from 'node:os';
import { createClient } from 'redis';
import { createScheduler } from '../lib';
import { claim } from '../lib/ops/claim';
import { put } from '../lib/ops/put';
import { compile } from '../lib/redis/scripts';
import { startRedis } from '../__tests__/support/redis-server';

const CALLS = 20_000;
const PIPELINE = 500;
const TASKS = 20_000;

type Admin = ReturnType<typeof createClient>;

/** usec per call of `command` since the last CONFIG RESETSTAT. */
async function perCall(admin: Admin, command: string): Promise<number> {
  const m = new RegExp(`cmdstat_${command}:calls=(\\d+),usec=(\\d+)`).exec(await admin.info('commandstats'));
  return m ? Number(m[2]) / Number(m[1]) : NaN;
}

/** Runs `args` CALLS times, PIPELINE at once, and answers Redis's usec per call. */
async function timed(admin: Admin, command: string, args: string[]): Promise<number> {
  await admin.sendCommand(['CONFIG', 'RESETSTAT']);
  for (let i = 0; i < CALLS; i += PIPELINE) await Promise.all(Array.from({ length: PIPELINE }, () => admin.sendCommand(args)));
  return perCall(admin, command);
}

/** The compiled script cut after its includes (`defs`), and `return 0` behind the same first two lines (`empty`). */
function variants(source: string): { defs: string; empty: string } {
  const lines = source.split('\n');
  // Each script's own code starts with the clock read once its includes are in.
  const at = lines.findIndex((line) => /^local now = nowMs\(\)/.test(line));
  if (at < 0) throw new Error('no `local now = nowMs()` line to cut at');
  return { defs: [...lines.slice(0, at), 'do return 0 end'].join('\n'), empty: [lines[0], lines[1], 'return 0'].join('\n') };
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const admin = createClient({ url: redis.url });
  await admin.connect();
  const keys = Array.from({ length: 41 }, (_, i) => `{q}:k${i}`);
  const args = Array.from({ length: 14 }, (_, i) => String(i));
  const rows: string[] = [];
  try {
    for (const op of [claim, put]) {
      for (const [label, source] of Object.entries(variants(compile(op)))) {
        const sha = (await admin.sendCommand(['SCRIPT', 'LOAD', source])) as string;
        const evalsha = await timed(admin, 'evalsha', ['EVALSHA', sha, String(keys.length), ...keys, ...args]);
        const name = `bench_${op.name}_${label}`;
        const body = source.slice(source.indexOf('\n') + 1);
        await admin.sendCommand([
          'FUNCTION',
          'LOAD',
          'REPLACE',
          `#!lua name=${name}\nredis.register_function{function_name='${name}', callback=function(KEYS, ARGV)\n${body}\nend, flags={'allow-oom'}}`,
        ]);
        const fcall = await timed(admin, 'fcall', ['FCALL', name, String(keys.length), ...keys, ...args]);
        rows.push(`| ${op.name} | ${label} | ${evalsha.toFixed(1)} | ${fcall.toFixed(1)} |`);
      }
    }
    await admin.sendCommand(['FUNCTION', 'FLUSH']);
    const scheduler = await createScheduler({ url: redis.url, queue: 'bench' });
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    for (let i = 0; i < TASKS; i += 1000) await scheduler.putMany(Array.from({ length: 1000 }, (_, k) => ({ data: { n: i + k } })));
    const putCall = await perCall(admin, 'evalsha');
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    let done = 0;
    await new Promise<void>((resolve) => {
      const worker = scheduler.work(
        async () => {
          if (++done === TASKS) setImmediate(() => void worker.close().then(resolve));
        },
        { concurrency: 32 },
      );
    });
    const drainCall = await perCall(admin, 'evalsha');
    await scheduler.close();
    console.log(
      [
        `Redis time per script call (µs, INFO commandstats), ${CALLS} calls each, ${PIPELINE} in flight; ${cpus().length} cores, Node ${process.version}`,
        '',
        '| Script | Variant | EVALSHA | FCALL |',
        '| --- | --- | --- | --- |',
        ...rows,
        '',
        `A real put call (putMany, 1,000 tasks a batch): ${putCall.toFixed(1)} µs; a real drain call (claim with acks, concurrency 32): ${drainCall.toFixed(1)} µs.`,
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
