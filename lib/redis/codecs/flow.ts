/**
 * The scripts that set how fast a queue's tasks flow: cap (the queue's own limits: concurrency,
 * rate, a back-off) and limit (its groups' limits). Headers in lua/cap.lua and lua/limit.lua.
 */
import { array, maybeNum, maybeText, num, type Codec } from './codec';

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
export const cap: Codec<{ fields: readonly CapField[] }, Array<number | null>> = {
  encode(i) {
    const argv: Array<string | number> = [i.fields.length];
    for (const { name, value } of i.fields) argv.push(name, value === null ? '' : typeof value === 'number' ? value : `+${value.after}`);
    return argv;
  },
  decode(reply, input) {
    return array('cap', reply, input.fields.length).map((value) => maybeNum('cap', value, 'a value written'));
  },
};

export interface LimitInput {
  /** The group whose own limit this is, or null for the limit of every group without one. */
  group: string | null;
  /** Most active tasks at once, or null to remove the limit. */
  limit: number | null;
  /** null on the first call; else the `next` the previous call returned. */
  from: string | null;
  /** Most parked tasks to move (and groups to look at) in this call. */
  batch: number;
}

export interface LimitReply {
  /** Parked tasks that went back to `grouped`. */
  moved: number;
  /** Where to go on from, or null when no parked task is left that the limit has room for. */
  next: string | null;
}

export const limit: Codec<LimitInput, LimitReply> = {
  encode: (i) => [i.group ?? '', i.limit ?? '', i.from ?? '', i.batch],
  decode(reply) {
    const r = array('limit', reply, 2);
    return { moved: num('limit', r[0], 'moved'), next: maybeText('limit', r[1], 'next') };
  },
};
