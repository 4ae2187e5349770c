/**
 * The hash commands docket sends outside its scripts: a limits hash, a schedule, a dependency list,
 * and the CLI's search for a short hash.
 */
import { array, count, text, textOrNull } from '../../redis/reply';
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

/**
 * HSCAN, one step from `cursor`: the fields among the next about `count` of the hash whose names
 * match `pattern`, and the cursor to go on from ('0' once the whole hash was scanned). The values
 * are dropped (Redis 7.0 has no NOVALUES): a caller matches narrowly, so few come back. Each step
 * costs Redis about `count` fields, never the whole hash.
 */
export const hscanFields = command(
  (key: string, cursor: string, pattern: string, count: number) => ['HSCAN', key, cursor, 'MATCH', pattern, 'COUNT', String(count)],
  (reply) => {
    const [cursor, found] = array('HSCAN', reply, 2);
    return { cursor: text('HSCAN', cursor, 'the cursor'), fields: [...fieldMap('HSCAN', found).keys()] };
  },
);

/** HDEL of one field: 1 when it was there, else 0. */
export const hdel = command(
  (key: string, field: string) => ['HDEL', key, field],
  (reply) => count('HDEL', reply, 'the fields removed'),
);
