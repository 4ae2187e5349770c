/**
 * The fault harness checked against itself, so that a scenario failing means docket failed, not
 * the tools: every proxy mode, the redis-server controls, and the worker processes.
 */
import { createClient, type RedisClientType } from 'redis';
import { eventually, sleep } from '../support/harness';
import { checkInvariants, taskCount } from './support/checker';
import { useLab } from './support/lab';
import { executionCount } from './support/oracle';
import { RedisProxy } from './support/proxy';

const lab = useLab({ redisArgs: ['--appendonly', 'yes', '--appendfsync', 'always'] });
let proxy: RedisProxy;
const clients: RedisClientType[] = [];

beforeAll(async () => {
  proxy = await RedisProxy.start(lab.redis.port);
});
afterAll(async () => {
  for (const c of clients) await c.disconnect().catch(() => {});
  await proxy.close();
});

/** A client that retries quickly, and whose errors are only collected. */
async function connect(url: string, errors: unknown[] = []): Promise<RedisClientType> {
  const c = createClient({ url, socket: { reconnectStrategy: () => 20 } }) as RedisClientType;
  c.on('error', (err) => errors.push(err));
  await c.connect();
  clients.push(c);
  return c;
}

const viaProxy = (errors?: unknown[]) => connect(proxy.url, errors);

/** Whether `p` settles within `ms`. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  p.catch(() => {});
  return Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    sleep(ms).then(() => false),
  ]);
}

describe('proxy', () => {
  afterEach(() => proxy.pass());

  it('keeps the byte order of each connection under jittered latency', async () => {
    const c = await viaProxy();
    await proxy.latency(40, 35);
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: 30 }, () => c.incr('h:order')));
    expect(replies).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(Date.now() - started).toBeGreaterThanOrEqual(10);
  });

  it('holds traffic in blackhole mode and lets it through once healed', async () => {
    const c = await viaProxy();
    await proxy.blackhole();
    const reply = c.set('h:held', '1');
    expect(await settlesWithin(reply, 300)).toBe(false);
    expect(await lab.raw.get('h:held')).toBeNull();
    await proxy.pass();
    await expect(reply).resolves.toBe('OK');
  });

  it('resets every open connection, and the client reconnects', async () => {
    const errors: unknown[] = [];
    const c = await viaProxy(errors);
    proxy.reset();
    await sleep(100);
    expect(errors.length).toBeGreaterThan(0);
    await expect(c.ping()).resolves.toBe('PONG');
  });

  it('refuses new connections, and accepts them again after pass', async () => {
    await proxy.refuse();
    const c = createClient({ url: proxy.url, socket: { reconnectStrategy: false } });
    c.on('error', () => {});
    await expect(c.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await proxy.pass();
    const d = await viaProxy();
    await expect(d.ping()).resolves.toBe('PONG');
  });

  it('cuts a connection right after a write: the command ran, its reply is lost', async () => {
    const c = await viaProxy();
    const cut = proxy.cutAfterNextWrite((chunk) => chunk.includes('h:cut'));
    await expect(c.set('h:cut', 'ran')).rejects.toThrow();
    await cut;
    expect(await lab.raw.get('h:cut')).toBe('ran');
    await expect(c.ping()).resolves.toBe('PONG');
  });
});

describe('redis-server control', () => {
  it('restarts on the same port and dir, reloading the AOF after a SIGKILL', async () => {
    await lab.raw.set('h:durable', 'yes');
    const before = lab.redis.pid;
    await lab.redis.kill();
    expect(lab.redis.running).toBe(false);
    await lab.redis.restart();
    expect(lab.redis.pid).not.toBe(before);
    const c = await connect(lab.redis.url);
    expect(await c.get('h:durable')).toBe('yes');
  });

  it('pauses with SIGSTOP and resumes with SIGCONT', async () => {
    const errors: unknown[] = [];
    const c = await connect(lab.redis.url, errors);
    lab.redis.signal('SIGSTOP');
    const reply = c.ping();
    expect(await settlesWithin(reply, 300)).toBe(false);
    lab.redis.signal('SIGCONT');
    await expect(reply).resolves.toBe('PONG');
    expect(errors).toEqual([]);
  });
});

describe('worker processes', () => {
  it('run tasks, record them in the oracle, and leave no process behind once killed', async () => {
    const worker = await lab.pool.spawn({ work: { concurrency: 2, leaseMs: 2000, workMs: [0, 5] } });
    const s = await lab.scheduler();
    const labels = ['a', 'b', 'c'];
    await lab.history.track(labels, s.putMany(labels.map((label) => ({ data: { label } }))));
    // Executions are recorded before the ack: wait for both.
    const done = async () => (await executionCount(lab.oracle, lab.run)) === 3 && (await taskCount(lab.raw, lab.prefix, lab.queue)) === 0;
    await eventually(done, 10_000);
    await worker.kill();
    expect(() => process.kill(worker.pid, 0)).toThrow();
    expect(lab.pool.live).toEqual([]);
    expect(await lab.figures()).toMatchObject({ ok: 3, executions: 3, lost: 0, unexpected: 0, duplicated: 0 });
    expect(await checkInvariants(lab.raw, lab.prefix, lab.queue)).toEqual([]);
  });
});
