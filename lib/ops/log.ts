/**
 * log: append lines to a leased task's log, dropping its oldest lines beyond the caps. Refused when
 * the caller no longer holds the lease (fencing), as ack is. It reads and writes the chunk it
 * appends to and the one it drops from (include: logs has the layout), whatever the log holds.
 */
import { script } from '../redis/op';
import { flag } from '../redis/reply';

export interface LogInput {
  id: string;
  token: string;
  /** Most lines kept for the task. */
  maxLines: number;
  /** Most bytes kept for the task. */
  maxBytes: number;
  /** Lines, each as a JSON string. */
  lines: readonly string[];
}

/** true when stored, false when the lease is lost. */
export const log = script<LogInput, boolean>({
  name: 'log',
  flags: 'allow-oom',
  keys: ['active', 'tasks', 'logs'],
  args: ['id', 'token', 'maxLines', 'maxBytes'],
  each: ['line'],
  encode: (i) => [i.id, i.token, i.maxLines, i.maxBytes, ...i.lines],
  decode: (reply) => flag('log', reply, 'the reply'),
});
