import { createClient } from 'redis';
import { removeChildren } from './children';
import { allKeys } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  removeChildren(globalThis.__docketChildren);
  const server = globalThis.__docketRedis;
  try {
    if (server) await checkNoScripts(server.url);
  } finally {
    await server?.stop();
  }
  await checkNothingLeft();
}

/**
 * Every operation is a function call (FCALL, FCALL_RO; lib/redis/library.ts): after the run, which
 * holds the contract suite (npm test, and npm run test:clients through each client), the shared
 * server must have been sent no script at all. Read from INFO commandstats, which counts every
 * command a client sent; only on the server the run started, whose counts are the run's own.
 */
async function checkNoScripts(url: string): Promise<void> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    const stats = await client.info('commandstats');
    const scripts = [...stats.matchAll(/^cmdstat_(eval|evalsha|eval_ro|evalsha_ro):calls=(\d+)/gm)].map((m) => `${m[1]} ${m[2]}`);
    if (scripts.length > 0) throw new Error(`the run sent scripts to Redis, where every operation is a function call (FCALL): ${scripts.join(', ')}`);
  } finally {
    await client.quit();
  }
}

/**
 * Under REDIS_URL, each test file deletes the keys under its prefixes once it ends (environment.ts):
 * a key the run added and left (a prefix a test never recorded, a key outside any prefix) fails
 * the run here, named, so it is fixed where it is written.
 */
async function checkNothingLeft(): Promise<void> {
  const before = globalThis.__docketKeysBefore;
  if (!before || !process.env.REDIS_URL) return;
  const left = [...(await allKeys(process.env.REDIS_URL))].filter((key) => !before.has(key)).sort();
  if (left.length === 0) return;
  const shown = left.slice(0, 30).join('\n  ') + (left.length > 30 ? `\n  ... and ${left.length - 30} more` : '');
  throw new Error(`the tests left ${left.length} keys in the Redis at REDIS_URL (record their prefix with ownPrefix, or delete them):\n  ${shown}`);
}
