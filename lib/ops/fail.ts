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
  /**
   * How the handler ended the attempt (domain/task.ts, Ending): 'failed', 'unrecoverable' (dead at
   * once) or 'retry-later'. Default 'failed'.
   */
  ending?: 'failed' | 'unrecoverable' | 'retry-later';
  /** When the retry runs, epoch ms on the Redis clock (a RetryLaterError's `at`): wins over retryIn. */
  retryAt?: number | null;
  /** Write the `retrying` event of a retry (the scheduler's option events: 'all'). Default false. */
  lifecycle?: boolean;
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
  keys: [
    'active',
    'delayed',
    'ready',
    'tasks',
    'dead',
    'counts',
    'wake',
    'held',
    ...LEVEL_KEYS,
    'events',
    'results',
    'kept',
    'progress',
    'redirects',
    'limits',
    ...DEPS_KEYS,
    'logs',
    'minutes',
  ],
  args: ['id', 'token', 'retryIn', 'error', 'maxAttempts', 'events', 'ending', 'retryAt', 'lifecycle'],
  encode: (i) => [i.id, i.token, i.retryIn, i.error, i.maxAttempts ?? '', i.events, i.ending ?? 'failed', i.retryAt ?? '', i.lifecycle ? 1 : 0],
  decode(reply) {
    const answer = text('fail', reply, 'the reply');
    const carry = answer.endsWith(':carry');
    return { outcome: oneOf('fail', carry ? answer.slice(0, -':carry'.length) : answer, FAIL_OUTCOMES, 'the outcome'), carry };
  },
});
