/**
 * What createScheduler asks of a server before anything else: that it runs Redis Functions (Redis
 * 7.0 or later, Valkey 7.2 or later), and that docket's library is loaded there. Every operation
 * is a function of that library (library.ts), so a server that cannot load it can run none: it is
 * refused at start-up with a typed error, before anything is written.
 */
import { OutOfMemoryError, PermissionError, RedisError, UnsupportedServerError } from '../types/errors';
import { info } from '../ops/commands/server';
import { routed } from '../ops/commands/via';
import { access } from '../ops/access';
import type { Context } from './context';

/** The oldest Redis docket runs on: the first with Functions. */
export const NEEDED_VERSION = '7.0.0';

/** Whether version `found` (`7.0.15`, `6.2.14`) is older than `needed`. */
export function olderThan(found: string, needed: string): boolean {
  const a = found.split('.').map(Number);
  const b = needed.split('.').map(Number);
  for (let i = 0; i < b.length; i++) {
    if ((a[i] ?? 0) !== b[i]) return (a[i] ?? 0) < b[i];
  }
  return false;
}

/**
 * Refuses a server older than NEEDED_VERSION (UnsupportedServerError), then loads docket's library
 * on the node that owns `firstKey` (a key of the default queue; other nodes load it on their first
 * call). A user who may not read INFO is not refused for it: the load then tells. A server that
 * knows no FUNCTION command is too old; a user who may not run FUNCTION LOAD gets a
 * PermissionError that names it. A full Redis (maxmemory) is not refused here: see below.
 */
export async function loadFunctions(ctx: Context, firstKey: string): Promise<void> {
  const deadline = { ms: ctx.options.commandTimeout, what: 'INFO' };
  const found = await info(routed(ctx.conn, firstKey, deadline), 'server').then(
    (fields) => fields.get('redis_version') ?? null,
    () => null,
  );
  if (found !== null && olderThan(found, NEEDED_VERSION)) throw new UnsupportedServerError(found, NEEDED_VERSION);
  try {
    await ctx.scripts.load(access, firstKey);
  } catch (err) {
    // A full Redis refuses FUNCTION LOAD (a write) even of a library it has, and a worker must
    // still start there to drain it: the first call tells whether the library is there, and
    // loads it if it can (else that call is refused with the same OutOfMemoryError).
    if (err instanceof OutOfMemoryError) return;
    const message = (err as { cause?: unknown }).cause instanceof Error ? ((err as { cause: Error }).cause.message ?? '') : '';
    if (err instanceof RedisError && /unknown command/i.test(message)) throw new UnsupportedServerError(found ?? 'unknown', NEEDED_VERSION, err);
    if (err instanceof PermissionError) {
      throw new PermissionError(new Error('the Redis user may not run FUNCTION LOAD, which docket needs to load its functions (allow +function|load)'), ['FUNCTION LOAD']);
    }
    throw err;
  }
}
