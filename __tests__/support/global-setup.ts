/**
 * Jest global setup: one throwaway redis-server for the whole run, unless REDIS_URL is set.
 * Test files keep apart by unique key prefixes and queue names, never by FLUSHDB.
 */
import { compileChildren } from './children';
import { startRedis, type RedisServer } from './redis-server';

declare global {
  // Shared with global-teardown, which runs in the same process.
  var __docketRedis: RedisServer | undefined;
  var __docketChildren: string | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Before the test workers fork, so that they inherit where the compiled children are.
  globalThis.__docketChildren = compileChildren();
  if (process.env.REDIS_URL) {
    process.env.DOCKET_TEST_URL = process.env.REDIS_URL;
    return;
  }
  const server = await startRedis();
  globalThis.__docketRedis = server;
  // Test workers are forked after this and inherit the environment.
  process.env.DOCKET_TEST_URL = server.url;
}
