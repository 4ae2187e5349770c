/**
 * The reply layouts several plain commands share, read with the scripts' readers (redis/reply.ts:
 * `array`, `text`, `count`, `flag`, which the commands also use directly). Each throws a
 * ReplyError naming the command for any other shape.
 */
import { array, text } from '../../redis/reply';

/** An array of strings (set members, sorted set members). */
export function strings(command: string, reply: unknown, what: string): string[] {
  return array(command, reply, undefined, what).map((value) => text(command, value, `an entry of ${what}`));
}

/**
 * A flat `[field, value, field, value, ...]` reply of strings (HGETALL, CONFIG GET) as a Map: a
 * field named `__proto__` or `constructor` is a field like any other, which a plain object is not.
 */
export function fieldMap(command: string, reply: unknown): Map<string, string> {
  const flat = array(command, reply, (n) => n % 2 === 0, 'the fields and values');
  const map = new Map<string, string>();
  for (let i = 0; i < flat.length; i += 2) map.set(text(command, flat[i], 'a field'), text(command, flat[i + 1], 'a value'));
  return map;
}
