/**
 * progress: store the latest progress of a leased task. Refused when the caller no longer holds the
 * lease (fencing), as ack is.
 */
import { script } from '../redis/op';
import { flag } from '../redis/reply';

export interface ProgressInput {
  id: string;
  token: string;
  /** The progress, as JSON. */
  value: string;
  events: number;
}

/** true when stored, false when the lease is lost. */
export const progress = script<ProgressInput, boolean>({
  name: 'progress',
  flags: 'allow-oom',
  keys: ['active', 'tasks', 'progress', 'events'],
  args: ['id', 'token', 'value', 'events'],
  encode: (i) => [i.id, i.token, i.value, i.events],
  decode: (reply) => flag('progress', reply, 'the reply'),
});
