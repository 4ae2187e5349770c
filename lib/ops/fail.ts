/**
 * fail: a held task's handler failed; retry it after a back-off, or make it dead when out of
 * attempts. Refused when the caller no longer holds the lease (fencing).
 */
import { DEPS_KEYS, LEVEL_KEYS, script } from '../redis/op';
import { oneOf, text } from '../redis/reply';

export interface FailInput {
  id: string;
  token: string;
  /** ms from the server's now until the retry. */
  retryIn: number;
  /** The failure, kept as the task's last error. */
  error: string;
  /** Overrides the task's own maxAttempts, or null to keep it. */
  maxAttempts: number | null;
  events: number;
}

export type FailOutcome = 'retry' | 'dead' | 'merged' | 'lost';

export interface FailReply {
  outcome: FailOutcome;
  /** The call left steps in the outbox for other queues (a dead task others wait on): carry them now. */
  carry: boolean;
}

const FAIL_OUTCOMES: readonly FailOutcome[] = ['retry', 'dead', 'merged', 'lost'];

export const fail = script<FailInput, FailReply>({
  name: 'fail',
  flags: 'allow-oom',
  keys: ['active', 'delayed', 'ready', 'tasks', 'dead', 'counts', 'wake', 'held', ...LEVEL_KEYS, 'events', 'results', 'kept', 'progress', 'redirects', 'limits', ...DEPS_KEYS, 'logs'],
  args: ['id', 'token', 'retryIn', 'error', 'maxAttempts', 'events'],
  encode: (i) => [i.id, i.token, i.retryIn, i.error, i.maxAttempts ?? '', i.events],
  decode(reply) {
    const answer = text('fail', reply, 'the reply');
    const carry = answer.endsWith(':carry');
    return { outcome: oneOf('fail', carry ? answer.slice(0, -':carry'.length) : answer, FAIL_OUTCOMES, 'the outcome'), carry };
  },
});
