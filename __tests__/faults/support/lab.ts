/**
 * One scenario file's laboratory: a queue Redis of its own (so its memory, restarts and faults
 * touch nobody else), an oracle Redis apart from it, raw clients on both, a unique prefix, queue
 * and run id, and a pool for worker processes. useLab() opens it before the file's tests and
 * tears all of it down after them: worker processes first (SIGKILL, so none is left behind), then
 * clients, then the servers and their dirs.
 */
import { randomBytes } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import { createScheduler, type Scheduler, type SchedulerOptions } from '../../../lib';
import { startRedis, type ControlledRedis } from '../../support/redis-server';
import { analyse, History, leftovers, type Figures } from './checker';
import { oracleKeys, readList, type Execution, type WorkerEvent } from './oracle';
import { WorkerPool, type ChildConfig } from './workers';

export interface LabOptions {
  /** Extra redis-server arguments for the queue's server, e.g. ['--appendonly', 'yes']. */
  redisArgs?: string[];
}

export interface Lab {
  redis: ControlledRedis;
  oracleServer: ControlledRedis;
  /** A plain client on the queue's Redis, for reading keys directly. */
  raw: RedisClientType;
  oracle: RedisClientType;
  prefix: string;
  queue: string;
  run: string;
  pool: WorkerPool;
  history: History;
  /** A scheduler in this process on the lab's prefix and queue; closed at teardown. */
  scheduler(options?: SchedulerOptions): Promise<Scheduler>;
  /** The base config of a child process; spawn() takes overrides. */
  childConfig(): ChildConfig;
  executions(): Promise<Execution[]>;
  starts(): Promise<Execution[]>;
  events(): Promise<WorkerEvent[]>;
  /** The checker's figures for the lab's history against the oracle and the queue's leftovers. */
  figures(): Promise<Figures>;
}

/** Registers beforeAll/afterAll for the calling test file and returns the lab they fill in. */
export function useLab(options: LabOptions = {}): Lab {
  const lab = {} as Lab;
  const closers: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    Object.assign(lab, await openLab(options, closers));
  });
  afterAll(async () => {
    // Last opened, first closed: the pool before the clients, the clients before the servers.
    for (const close of closers.reverse()) await close().catch(() => {});
  });
  return lab;
}

async function openLab(options: LabOptions, closers: Array<() => Promise<unknown>>): Promise<Lab> {
  const tag = randomBytes(4).toString('hex');
  const prefix = `fault-${tag}`;
  const queue = 'q';
  const run = tag;
  const redis = await startRedis(options.redisArgs ?? []);
  closers.push(() => redis.stop());
  const oracleServer = await startRedis();
  closers.push(() => oracleServer.stop());
  const raw = await client(redis.url, closers);
  const oracle = await client(oracleServer.url, closers);
  const childConfig = (): ChildConfig => ({ url: redis.url, prefix, queue, oracleUrl: oracleServer.url, run });
  const pool = new WorkerPool(childConfig());
  closers.push(() => pool.killAll());
  const history = new History();
  const keys = oracleKeys(run);
  const lab: Lab = {
    redis,
    oracleServer,
    raw,
    oracle,
    prefix,
    queue,
    run,
    pool,
    history,
    childConfig,
    async scheduler(opts = {}) {
      // Without a warning handler, the start-up check about AOF being off would print on every file.
      const s = await createScheduler({ url: redis.url, prefix, queue, onWarning: () => {}, ...opts });
      closers.push(() => s.close());
      return s;
    },
    executions: () => readList<Execution>(oracle, keys.execs),
    starts: () => readList<Execution>(oracle, keys.starts),
    events: () => readList<WorkerEvent>(oracle, keys.events),
    async figures() {
      const [execs, left] = await Promise.all([lab.executions(), leftovers(raw, prefix, queue)]);
      return analyse(history, execs, left);
    },
  };
  return lab;
}

async function client(url: string, closers: Array<() => Promise<unknown>>): Promise<RedisClientType> {
  const c = createClient({ url }) as RedisClientType;
  c.on('error', () => {});
  await c.connect();
  // disconnect, not quit: node-redis 4.7's quit() never settles if called while it reconnects.
  closers.push(() => c.disconnect());
  return c;
}
