/** Commands on keys of any type. */
import { count, textOrNull } from '../../redis/reply';
import { command } from './via';

/** EXISTS: how many of the keys exist (a key named twice counts twice). On a cluster, all in one slot. */
export const exists = command(
  (...keys: string[]) => ['EXISTS', ...keys],
  (reply) => count('EXISTS', reply, 'the keys found'),
);

/**
 * SET key 1 NX PX ms: true when this call set the key, false when it already existed. A marker
 * that one process claims for a while (the start-up warning about AOF, once a day: checks.ts).
 */
export const setOnce = command(
  (key: string, ms: number) => ['SET', key, '1', 'NX', 'PX', String(ms)],
  (reply) => textOrNull('SET', reply, 'the reply') === 'OK',
);
