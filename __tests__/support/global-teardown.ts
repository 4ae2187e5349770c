import { removeChildren } from './children';
import { allKeys } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  removeChildren(globalThis.__docketChildren);
  await globalThis.__docketRedis?.stop();
  await checkNothingLeft();
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
