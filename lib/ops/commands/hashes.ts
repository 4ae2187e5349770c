/** The hash commands docket sends outside its scripts: a limits hash, a schedule, a dependency list. */
import { textOrNull, count } from '../../redis/reply';
import { fieldMap } from './replies';
import { command } from './via';

/** HGET: the field's value, or null when the hash or the field is missing. */
export const hget = command(
  (key: string, field: string) => ['HGET', key, field],
  (reply) => textOrNull('HGET', reply, 'the value'),
);

/** HGETALL: every field of the hash by name (none when the hash is missing). */
export const hgetall = command(
  (key: string) => ['HGETALL', key],
  (reply) => fieldMap('HGETALL', reply),
);

/** HSET of one field: 1 when the field is new, 0 when its value was replaced. */
export const hset = command(
  (key: string, field: string, value: string) => ['HSET', key, field, value],
  (reply) => count('HSET', reply, 'the fields added'),
);
