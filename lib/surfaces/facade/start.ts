/**
 * Starting a scheduler: createScheduler's options, and what happens before the first call can be
 * made: the options checked, the connection opened, the server's settings and the ACL checked,
 * the hash function readied and the key layout migrated. Apart from the scheduler object because
 * all of it runs once, and a start that fails must leave no connection behind.
 */
import { checkAccess } from '../../redis/access';
import { checkServer } from '../../redis/checks';
import { loadFunctions } from '../../redis/functions';
import { connect } from '../../redis/connection';
import { Context } from '../../redis/context';
import { migrateLayout } from '../../redis/layout';
import { Scripts } from '../../redis/scripts';
import { ValidationError } from '../../types/errors';
import { Keyring } from '../../domain/crypto';
import { queueKeys } from '../../domain/keys';
import { createHash128 } from '../../domain/hashing';
import { checkLogger } from '../../domain/log';
import { parse, schedulerOptions } from '../../domain/options';
import { urlProblem } from '../../domain/redis-url';
import type { SchedulerOptions } from '../../types/scheduler-options';

/**
 * Connects to Redis and readies the hash function (both start asynchronously), then makes the
 * scheduler with `make`. Whatever fails on the way closes the connection it opened.
 */
export async function start<S>(options: SchedulerOptions, make: (ctx: Context, warn: (message: string) => void) => S): Promise<S> {
  const { logger, ...rest } = options;
  const log = checkLogger(logger, 'options.logger');
  const { hash, onWarning, encryption, ...parsed } = parse(schedulerOptions, rest, 'options');
  const keyring = encryption ? new Keyring(encryption) : null;
  const { client, clientOptions, cluster } = parsed;
  // REDIS_URL is read only when it could be the URL used: a caller's client or cluster, or a URL
  // given in clientOptions, makes it moot, and a stray bad one must not stop such a scheduler.
  const fromEnv = client === undefined && cluster === undefined && clientOptions?.url === undefined ? envUrl() : undefined;
  const url = parsed.url ?? fromEnv ?? 'redis://127.0.0.1:6379';
  const conn = await connect({ url, cluster, client, clientOptions });
  const warn = onWarning ?? ((message: string) => process.emitWarning(message, 'DocketWarning'));
  try {
    const keys = queueKeys(parsed.prefix, parsed.queue);
    await checkServer(conn, { firstKey: keys.tasks, marker: keys.warned, aof: parsed.warnings.aof, daily: !onWarning, timeoutMs: parsed.commandTimeout }, warn);
    // Under encryption (and no options.hash) the keyring hashes, bound to each task's queue.
    const identity = hash ?? (keyring ? null : await createHash128());
    const ctx = new Context(conn, new Scripts(conn, parsed.commandTimeout), parsed, identity, log, keyring);
    await loadFunctions(ctx, keys.tasks);
    ctx.unblock = (await checkAccess(ctx, warn)).unblock;
    await migrateLayout(ctx);
    return make(ctx, warn);
  } catch (err) {
    // A scheduler that cannot start leaves no connection behind.
    await conn.close();
    throw err;
  }
}

/** REDIS_URL, checked as options.url is. */
function envUrl(): string | undefined {
  const url = process.env.REDIS_URL;
  if (url === undefined || url === '') return undefined;
  const problem = urlProblem(url);
  if (problem) throw new ValidationError('REDIS_URL', problem);
  return url;
}
