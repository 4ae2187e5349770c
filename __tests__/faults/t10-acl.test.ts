/**
 * T10 (issue 3): docket under a restricted Redis ACL user that may run only the commands docket
 * uses, on `<prefix>:*` keys only, with no INFO or CONFIG rights. Must hold: 1,000 tasks (half of
 * them in fair groups with a limit, issue 5) with
 * worker processes SIGKILLed and respawned lose nothing (T1 at small scale); a put under another
 * prefix is refused at start-up with a typed PermissionError; docket starts without INFO/CONFIG
 * rights. A user without a command docket's scripts need (XADD) is refused at start-up, naming it
 * (issue 21: a script refused half-way stranded a task).
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
/**
 * What docket runs: scripts, the idle wait, and every command its scripts call (docs/guarantees.md
 * lists the same), written out here so that a command docket starts to need fails this test.
 */
const COMMANDS = [
  'fcall',
  'fcall_ro',
  'function|load',
  'blpop',
  'client|id',
  'client|unblock',
  'del',
  'exists',
  'set',
  'hdel',
  'hexists',
  'hget',
  'hmget',
  'hgetall',
  'hincrby',
  'hset',
  'hstrlen',
  'llen',
  'lpop',
  'lpush',
  'lrem',
  'pexpire',
  'rpush',
  'time',
  'zadd',
  'zcard',
  'zrange',
  'zrangebylex',
  'zrangebyscore',
  'zrem',
  'zremrangebyscore',
  'zrevrange',
  'zscore',
  'zmscore',
  'zpopmin',
  'xadd',
  'sadd',
  'pttl',
  'xrevrange',
  'zlexcount',
  'zremrangebylex',
  'lrange',
  'lset',
  'unlink',
  'zcount',
];

const lab = useLab();

it('works under an ACL user limited to its commands and its prefix', async () => {
  const started = Date.now();
  await lab.raw.sendCommand(['ACL', 'SETUSER', 'docket', 'on', '>secret', 'resetkeys', `~${lab.prefix}:*`, '-@all', ...COMMANDS.map((c) => `+${c}`)]);
  const url = lab.redis.url.replace('redis://', 'redis://docket:secret@');
  const warnings: string[] = [];
  const producer: Scheduler = await createScheduler({ url, prefix: lab.prefix, queue: lab.queue, onWarning: (m) => warnings.push(m) });
  try {
    // Another prefix is outside the user's keys: refused at start-up, typed.
    await expect(createScheduler({ url, prefix: 'elsewhere', onWarning: () => {} })).rejects.toBeInstanceOf(PermissionError);
    expect(warnings).toEqual([]); // the checks could not read CONFIG, and said nothing

    const workers: ChildWorker[] = await Promise.all([1, 2, 3].map(() => lab.pool.spawn({ url, work: WORK })));
    // Half the tasks in 5 groups of at most 3 active each: the group-limit commands run too.
    await producer.limitGroups(3);
    const items = Array.from({ length: TASKS }, (_, i) => ({
      data: { label: `t10-${i}` },
      options: { maxAttempts: 20, ...(i % 2 ? { group: `g${i % 5}` } : {}) },
    }));
    await lab.history.track(
      items.map((it) => it.data.label),
      producer.putMany(items),
    );
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

it('refuses to start a user without XADD, naming it, so no script can stop half-way', async () => {
  const without = COMMANDS.filter((c) => c !== 'xadd');
  await lab.raw.sendCommand(['ACL', 'SETUSER', 'noxadd', 'on', '>secret', 'resetkeys', `~${lab.prefix}:*`, '-@all', ...without.map((c) => `+${c}`)]);
  const url = lab.redis.url.replace('redis://', 'redis://noxadd:secret@');
  const before = await lab.raw.dbSize();
  const err = await createScheduler({ url, prefix: lab.prefix, queue: 'noxadd', onWarning: () => {} }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PermissionError);
  expect((err as PermissionError).commands).toEqual(['XADD']);
  expect(await lab.raw.dbSize()).toBe(before);
  // With events off the same user needs no XADD, and a failed task goes back to be retried.
  const s = await createScheduler({ url, prefix: lab.prefix, queue: 'noxadd', eventsMaxLength: 0, onWarning: () => {} });
  try {
    const { hash } = await s.put('fails once');
    expect(await s.fail((await s.claim())!, { error: new Error('boom'), retryIn: 0 })).toBe('retry');
    const again = (await s.claim())!;
    expect(again.hash).toBe(hash);
    expect(await s.ack(again)).toBe(true);
  } finally {
    await s.close();
  }
});
