/**
 * outbox: a client carrying dependency steps from this queue to others (lib/features/deps.ts) says
 * which it has carried, and takes the next steps that are due. A step taken is leased: its score
 * moves to now + lease, so another carrier takes it only if this one dies before saying it is
 * carried. A step is a JSON string the scripts write and read (include: deps).
 */
import { ReplyError } from '../types/errors';
import { script } from '../redis/op';
import { array, num, text } from '../redis/reply';

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

export const outbox = script<OutboxInput, OutboxReply>({
  name: 'outbox',
  flags: 'allow-oom',
  keys: ['outbox'],
  args: ['lease', 'most'],
  each: ['step'],
  encode: (i) => [i.lease, i.most, ...i.carried],
  decode(reply, input) {
    const r = array('outbox', reply, (n) => n >= 1 && n - 1 <= input.most);
    return { now: num('outbox', r[0], 'now'), steps: r.slice(1).map((step) => text('outbox', step, 'a step')) };
  },
});

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
