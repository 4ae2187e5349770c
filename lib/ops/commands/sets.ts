/** The set commands docket sends outside its scripts: the registry of queue names (admin.ts). */
import { array, flag, count } from '../../redis/reply';
import { strings } from './replies';
import { command } from './via';

/** SMEMBERS: every member, in no order (none when the set is missing). */
export const smembers = command(
  (key: string) => ['SMEMBERS', key],
  (reply) => strings('SMEMBERS', reply, 'the members'),
);

/** SADD: how many of the members were new. */
export const sadd = command(
  (key: string, ...members: string[]) => ['SADD', key, ...members],
  (reply) => count('SADD', reply, 'the members added'),
);

/** SREM: how many of the members were there. */
export const srem = command(
  (key: string, ...members: string[]) => ['SREM', key, ...members],
  (reply) => count('SREM', reply, 'the members removed'),
);

/** SMISMEMBER: whether each member is in the set, in the order asked. */
export const smismember = command(
  (key: string, ...members: string[]) => ['SMISMEMBER', key, ...members],
  (reply) => array('SMISMEMBER', reply, undefined, 'the answers').map((answer) => flag('SMISMEMBER', answer, 'an answer')),
);
