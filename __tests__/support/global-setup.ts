/**
 * Jest global setup: one throwaway redis-server for the whole run, unless REDIS_URL is set.
 * Test files keep apart by unique key prefixes and queue names, never by FLUSHDB.
 */
import { createClient } from 'redis';
import { compileChildren } from './children';
import { startRedis, type RedisServer } from './redis-server';

declare global {
  // Shared with global-teardown, which runs in the same process.
  var __docketRedis: RedisServer | undefined;
  var __docketChildren: string | undefined;
  var __docketKeysBefore: Set<string> | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Before the test workers fork, so that they inherit where the compiled children are.
  globalThis.__docketChildren = compileChildren();
  if (process.env.REDIS_URL) {
    process.env.DOCKET_TEST_URL = process.env.REDIS_URL;
    // What that Redis held before the run: global-teardown fails the run for any key added since.
    globalThis.__docketKeysBefore = await allKeys(process.env.REDIS_URL);
    return;
  }
  const server = await startRedis();
  globalThis.__docketRedis = server;
  // Test workers are forked after this and inherit the environment.
  process.env.DOCKET_TEST_URL = server.url;
}

/** Every key of a Redis (SCAN, never KEYS). Shared with global-teardown. */
export async function allKeys(url: string): Promise<Set<string>> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    const keys = new Set<string>();
    for await (const key of client.scanIterator({ COUNT: 1000 })) keys.add(key);
    return keys;
  } finally {
    await client.quit();
  }
}
