/** The sorted set commands docket sends outside its scripts: the dashboard's reads of workers, leases and parked tasks. */
import { array, text, count } from '../../redis/reply';
import { ReplyError } from '../../types/errors';
import { strings } from './replies';
import { command } from './via';

/** ZCARD: how many members (0 when the set is missing). */
export const zcard = command(
  (key: string) => ['ZCARD', key],
  (reply) => count('ZCARD', reply, 'the member count'),
);

/** ZRANGE by rank, `start` to `stop` inclusive (negative from the end): the members, lowest score first. */
export const zrange = command(
  (key: string, start: number, stop: number) => ['ZRANGE', key, String(start), String(stop)],
  (reply) => strings('ZRANGE', reply, 'the members'),
);

/** ZRANGE ... WITHSCORES: each member with its score, lowest first. */
export const zrangeWithScores = command(
  (key: string, start: number, stop: number) => ['ZRANGE', key, String(start), String(stop), 'WITHSCORES'],
  (reply) => scored(reply),
);

/**
 * A WITHSCORES reply as pairs: on RESP2 a flat `[member, score, ...]` with each score a string,
 * on RESP3 (a caller's client read as it is) `[[member, score], ...]` with each score a number.
 */
function scored(reply: unknown): Array<[string, number]> {
  const list = array('ZRANGE', reply, undefined, 'the members');
  if (list.length > 0 && Array.isArray(list[0])) {
    return list.map((pair) => {
      const [member, value] = array('ZRANGE', pair, 2, 'a member with its score');
      return [text('ZRANGE', member, 'a member'), score(value)];
    });
  }
  if (list.length % 2 !== 0) throw new ReplyError('ZRANGE', `the members with their scores has ${list.length} entries, an odd number`);
  const pairs: Array<[string, number]> = [];
  for (let i = 0; i < list.length; i += 2) pairs.push([text('ZRANGE', list[i], 'a member'), score(list[i + 1])]);
  return pairs;
}

/** A score: a number, or its RESP2 text, where Redis writes the infinities as `inf` and `-inf`. */
function score(value: unknown): number {
  if (typeof value === 'number' && !Number.isNaN(value)) return value;
  if (value === 'inf' || value === '+inf') return Infinity;
  if (value === '-inf') return -Infinity;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (Number.isNaN(n)) throw new ReplyError('ZRANGE', `a score: expected a number, got ${String(JSON.stringify(value)).slice(0, 80)}`);
  return n;
}
