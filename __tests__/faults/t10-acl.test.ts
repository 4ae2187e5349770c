/**
 * T10 (issue 3): docket under a restricted Redis ACL user that may run only the commands docket
 * uses, on `<prefix>:*` keys only, with no INFO or CONFIG rights. Must hold: 1,000 tasks (half of
 * them in fair groups with a limit, issue 5) with
 * worker processes SIGKILLed and respawned lose nothing (T1 at small scale); a put under another
 * prefix is refused with a typed PermissionError; docket starts without INFO/CONFIG rights.
 */
import { createScheduler, PermissionError, type Scheduler } from '../../lib';
import { eventually } from '../support/harness';
import { checkInvariants, pending, summary } from './support/checker';
import { useLab } from './support/lab';
import { executionCount } from './support/oracle';
import type { ChildWorker, WorkConfig } from './support/workers';

const TASKS = 1000;
const KILLS = 3;
const WORK: WorkConfig = { concurrency: 4, leaseMs: 2000, workMs: [1, 5] };
/** What docket runs: scripts, the idle wait, and every command its scripts call. */
const COMMANDS = [
  'evalsha', 'eval', 'blpop', 'client|id', 'client|unblock', 'ping', 'quit',
  'exists', 'hdel', 'hexists', 'hget', 'hmget', 'hgetall', 'hincrby', 'hset', 'llen', 'lpop', 'lpush', 'lrem', 'pexpire',
  'rpush', 'time', 'zadd', 'zcard', 'zrange', 'zrangebylex', 'zrangebyscore', 'zrem', 'zremrangebyscore',
  'zrevrange', 'zscore', 'zmscore', 'zpopmin', 'xadd', 'sadd',
];

const lab = useLab();

it('works under an ACL user limited to its commands and its prefix', async () => {
  const started = Date.now();
  await lab.raw.sendCommand(['ACL', 'SETUSER', 'docket', 'on', '>secret', 'resetkeys', `~${lab.prefix}:*`, '-@all', ...COMMANDS.map((c) => `+${c}`)]);
  const url = lab.redis.url.replace('redis://', 'redis://docket:secret@');
  const warnings: string[] = [];
  const producer: Scheduler = await createScheduler({ url, prefix: lab.prefix, queue: lab.queue, onWarning: (m) => warnings.push(m) });
  try {
    // Another prefix is outside the user's keys: refused, typed.
    const other = await createScheduler({ url, prefix: 'elsewhere', onWarning: () => {} });
    await expect(other.put('not mine')).rejects.toBeInstanceOf(PermissionError);
    await other.close();
    expect(warnings).toEqual([]); // the checks could not read CONFIG, and said nothing

    const workers: ChildWorker[] = await Promise.all([1, 2, 3].map(() => lab.pool.spawn({ url, work: WORK })));
    // Half the tasks in 5 groups of at most 3 active each: the group-limit commands run too.
    await producer.limitGroups(3);
    const items = Array.from({ length: TASKS }, (_, i) => ({
      data: { label: `t10-${i}` },
      options: { maxAttempts: 20, ...(i % 2 ? { group: `g${i % 5}` } : {}) },
    }));
    await lab.history.track(items.map((it) => it.data.label), producer.putMany(items));
    for (let kill = 1; kill <= KILLS; kill++) {
      await eventually(async () => (await executionCount(lab.oracle, lab.run)) >= (TASKS * kill) / (KILLS + 1), 30_000);
      const victim = workers.splice(Math.floor(Math.random() * workers.length), 1)[0];
      await victim.kill();
      workers.push(await lab.pool.spawn({ url, work: WORK }));
    }
    await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) === 0, 30_000);
    const violations = await checkInvariants(lab.raw, lab.prefix, lab.queue);
    const f = await lab.figures();
    console.log(summary('T10', f, { kills: KILLS, wallMs: Date.now() - started }));
    expect(f).toMatchObject({ ok: TASKS, lost: 0, unexpected: 0, untyped: 0, dead: 0 });
    expect(f.duplicated).toBeLessThanOrEqual(WORK.concurrency * KILLS);
    expect(violations).toEqual([]);
  } finally {
    await producer.close();
  }
});
