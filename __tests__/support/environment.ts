/**
 * The test files' environment: jest's node environment, plus one duty when the tests run against a
 * Redis they did not start (REDIS_URL): once a file has ended, its hooks and workers included, the
 * keys under every prefix it used (harness.ts records each one) are deleted, so the suite leaves
 * that Redis as it found it. On the server global setup starts, nothing is deleted: it dies with
 * the run. Here, not in an afterAll, because a file's own afterAll hooks run after the harness's
 * (jest runs them in the order they were declared) and may still write: closing a worker acks.
 */
import { TestEnvironment } from 'jest-environment-node';
import { createClient } from 'redis';

export default class DocketEnvironment extends TestEnvironment {
  async teardown(): Promise<void> {
    const prefixes = (this.global as { __docketPrefixes?: Set<string> }).__docketPrefixes;
    const url = process.env.REDIS_URL;
    if (url && prefixes?.size) await deleteUnder(url, [...prefixes]);
    await super.teardown();
  }
}

/** Deletes every key `<prefix>:*` of each prefix (SCAN, never KEYS; UNLINK in batches). */
export async function deleteUnder(url: string, prefixes: string[]): Promise<void> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    for (const prefix of prefixes) {
      const batch: string[] = [];
      for await (const key of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
        batch.push(key);
        if (batch.length >= 500) await client.unlink(batch.splice(0));
      }
      if (batch.length > 0) await client.unlink(batch);
    }
  } finally {
    await client.quit();
  }
}
