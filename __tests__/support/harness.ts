/**
 * What every test file needs: a scheduler on the test redis-server under a prefix of its own, a
 * raw client to look at keys directly, and a way to wait for a condition.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { createClient, type RedisClientType } from 'redis';
import { createScheduler, type RedisLike, type Scheduler, type SchedulerOptions } from '../../lib';
import { queueKeys } from '../../lib/domain/keys';

export function testUrl(): string {
  const url = process.env.DOCKET_TEST_URL;
  if (!url) throw new Error('DOCKET_TEST_URL is unset: run the tests through jest (global setup starts Redis)');
  return url;
}

/** A key prefix no other test uses, so tests never see each other's keys. */
export function uniquePrefix(tag = 't'): string {
  return ownPrefix(`${tag}-${randomBytes(4).toString('hex')}`);
}

/**
 * Records a prefix as this test file's: under REDIS_URL (a Redis the tests did not start) its keys
 * are deleted once the file has ended (support/environment.ts). uniquePrefix and useRedis record
 * theirs; a test that picks a prefix itself, or writes under one a child process uses, calls it.
 */
export function ownPrefix(prefix: string): string {
  const store = globalThis as { __docketPrefixes?: Set<string> };
  (store.__docketPrefixes ??= new Set()).add(prefix);
  return prefix;
}

/**
 * `DOCKET_TEST_CLIENT=5`, `6` or `ioredis` (npm run test:clients; `ioredis6` by hand): each
 * scheduler a test opens without a connection of its own choosing is given a connected client of
 * that node-redis major, or an ioredis 5 (or 6) client, instead of a URL, as a service that
 * passes its own client does, so the contract suite runs through it.
 */
const CALLER_CLIENT = process.env.DOCKET_TEST_CLIENT;

/** A caller's client, and how the caller ends it (node-redis's disconnect(), ioredis's quit()). */
export interface CallerClient {
  client: RedisLike;
  end(): Promise<unknown>;
}

/** A connected node-redis 5 or 6 client (the redis-v5 and redis-v6 aliases of the dev dependencies), or an ioredis 5 or 6 client (ioredis6 is an alias too). */
export async function callerClient(kind: string): Promise<CallerClient> {
  if (kind === 'ioredis' || kind === 'ioredis6') {
    const client = kind === 'ioredis' ? new Redis(testUrl()) : new Redis6(testUrl());
    client.on('error', () => {});
    // Typed as ioredis types its client: that it is a RedisLike is checked here too.
    const like: RedisLike = client;
    return { client: like, end: () => client.quit() };
  }
  if (kind !== '5' && kind !== '6') throw new Error(`DOCKET_TEST_CLIENT=${kind}: expected 5, 6, ioredis or ioredis6`);
  // Typed as each package types its client: that both are a RedisLike is checked here too.
  const client: RedisLike & { disconnect(): Promise<void> } =
    kind === '5' ? (await import('redis-v5')).createClient({ url: testUrl() }) : (await import('redis-v6')).createClient({ url: testUrl() });
  client.on('error', () => {});
  await client.connect();
  return { client, end: () => client.disconnect() };
}

/** Opens schedulers and raw clients for one test file and closes them all after it. */
export function useRedis() {
  const opened: Array<{ close(): Promise<unknown> }> = [];
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((c) => c.close()));
  });
  return {
    async scheduler(options: SchedulerOptions = {}): Promise<Scheduler & { prefix: string }> {
      const prefix = ownPrefix(options.prefix ?? uniquePrefix());
      const chosen = ['url', 'client', 'cluster', 'clientOptions'].some((key) => key in options);
      const caller = CALLER_CLIENT && !chosen ? await callerClient(CALLER_CLIENT) : undefined;
      const client = caller?.client;
      // The test server runs without AOF on purpose (persistence would cost the shared machine disk
      // writes and prove nothing here): `warnings: { aof: false }` skips that check, so no warning
      // and no day-long marker key (a leftover on a REDIS_URL server). onWarning drops the rest:
      // tests provoke deprecation warnings on purpose (fuzz), and admin.test reads its own.
      const opening = createScheduler({ ...(client ? { client } : { url: testUrl() }), warnings: { aof: false }, onWarning: () => {}, ...options, prefix });
      // A caller's client outlives the scheduler (close() leaves it open): it is ended after it,
      // and also when the scheduler never opened (a test that expects createScheduler to reject).
      if (caller)
        opened.push({
          close: () =>
            opening
              .then(
                (s) => s.close(),
                () => {},
              )
              .then(() => caller.end()),
        });
      const s = await opening;
      if (!client) opened.push(s);
      return Object.assign(s, { prefix });
    },
    async raw(): Promise<RedisClientType> {
      const client = createClient({ url: testUrl() }) as RedisClientType;
      client.on('error', () => {});
      await client.connect();
      opened.push({ close: () => client.quit() });
      return client;
    },
  };
}

/** Every key under a prefix (SCAN, never KEYS). */
export async function keysUnder(client: RedisClientType, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) keys.push(key);
  return keys.sort();
}

/** The Redis server's clock, in epoch ms: the clock docket makes every time decision on. */
export async function serverNow(client: RedisClientType): Promise<number> {
  const [seconds, micros] = await client.sendCommand<[string, string]>(['TIME']);
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns true, or fails after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** A stored task's record (parsed) and payload, as one field of `tasks` holds them (lua/include/record.lua). */
export async function readRecord(client: RedisClientType, prefix: string, queue: string, hash: string): Promise<{ meta: Record<string, unknown>; payload: string }> {
  const field = (await client.hGet(queueKeys(prefix, queue).tasks, hash))!;
  const cut = field.indexOf('\n');
  return { meta: JSON.parse(field.slice(0, cut)) as Record<string, unknown>, payload: field.slice(cut + 1) };
}

/**
 * Overwrites a stored task's record, keeping its payload: `meta` as an object, or as raw text (a
 * damaged record, as an older or buggy writer may leave).
 */
export async function writeRecord(client: RedisClientType, prefix: string, queue: string, hash: string, meta: Record<string, unknown> | string): Promise<void> {
  const key = queueKeys(prefix, queue).tasks;
  const field = (await client.hGet(key, hash))!;
  const text = typeof meta === 'string' ? meta : JSON.stringify(meta);
  await client.hSet(key, hash, `${text}\n${field.slice(field.indexOf('\n') + 1)}`);
}
