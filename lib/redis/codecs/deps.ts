/**
 * The scripts of dependency steps that cross queues: apply (a queue takes steps carried to it) and
 * outbox (a carrier says what it carried and takes the next due steps). Headers in lua/apply.lua
 * and lua/outbox.lua; a step is a JSON string the scripts write and read (include: deps).
 */
import { ReplyError } from '../../domain/errors';
import { array, maybeNum, num, text, type Codec } from './codec';

export interface ApplyReply {
  /** Steps still waiting in this queue's `settle` list (a failure down a long chain): call again. */
  left: number;
  /** When this queue's own outbox has steps due (ms), or null: the steps made new ones to carry on. */
  due: number | null;
}

export const apply: Codec<{ events: number; steps: readonly string[] }, ApplyReply> = {
  encode: (i) => [i.events, ...i.steps],
  decode(reply) {
    const r = array('apply', reply, (n) => n === 2);
    return { left: num('apply', r[0], 'the steps left'), due: maybeNum('apply', r[1], 'the outbox due time') };
  },
};

export interface OutboxInput {
  /** How long (ms) a step taken stays with this carrier. */
  lease: number;
  /** Most steps to take; 0 only says what was carried. */
  most: number;
  /** Steps carried (applied in their queues): removed. */
  carried: readonly string[];
}

export interface OutboxReply {
  /** The server's now (ms). */
  now: number;
  /** The steps taken, leased to this carrier. */
  steps: string[];
}

export const outbox: Codec<OutboxInput, OutboxReply> = {
  encode: (i) => [i.lease, i.most, ...i.carried],
  decode(reply, input) {
    const r = array('outbox', reply, (n) => n >= 1 && n - 1 <= input.most);
    return { now: num('outbox', r[0], 'now'), steps: r.slice(1).map((step) => text('outbox', step, 'a step')) };
  },
};

/** The queue a step is for: a step is a JSON array whose second entry names it (include: deps). */
export function stepQueue(step: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(step);
  } catch {
    parsed = null;
  }
  const queue = Array.isArray(parsed) ? (parsed[1] as unknown) : undefined;
  if (typeof queue !== 'string') throw new ReplyError('outbox', `a step is not [kind, queue, ...]: ${step.slice(0, 80)}`);
  return queue;
}
