/** Commands on keys of any type. */
import { count } from '../../redis/reply';
import { command } from './via';

/** EXISTS: how many of the keys exist (a key named twice counts twice). On a cluster, all in one slot. */
export const exists = command(
  (...keys: string[]) => ['EXISTS', ...keys],
  (reply) => count('EXISTS', reply, 'the keys found'),
);
