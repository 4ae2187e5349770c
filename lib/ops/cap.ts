/**
 * cap: set or remove a queue's own limits (concurrency, rate, a back-off; include: limits, in claim)
 * in one step, then wake an idle worker, since a raised or removed limit may let it lease. Allowed
 * on a full Redis: raising a limit is how an operator lets a queue drain.
 */
import { script } from '../redis/op';
import { array, maybeNum } from '../redis/reply';

/**
 * A field of a queue's limits hash and its new value: a number, null to remove it, or
 * `{ after: ms }` for that long after the server's now (a back-off's end).
 */
export interface CapField {
  /** concurrency, rate, per, until; grate, gper (each group's rate); rate|<group>, per|<group>. */
  name: string;
  value: number | null | { after: number };
}

/** The values written, in order: null for a removal (an `after` comes back as the time it ends). */
export const cap = script<{ fields: readonly CapField[] }, Array<number | null>>({
  name: 'cap',
  flags: 'allow-oom',
  keys: ['limits', 'wake', 'gheld'],
  args: ['count'],
  each: ['name', 'value'],
  encode(i) {
    const argv: Array<string | number> = [i.fields.length];
    for (const { name, value } of i.fields) argv.push(name, value === null ? '' : typeof value === 'number' ? value : `+${value.after}`);
    return argv;
  },
  decode(reply, input) {
    return array('cap', reply, input.fields.length).map((value) => maybeNum('cap', value, 'a value written'));
  },
});
