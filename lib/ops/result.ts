/**
 * result: what docket knows of a task: its live record, else its kept outcome (include: outcomes),
 * else nothing; and, when asked, the events stream's latest entry id, so a waiter reads on from it.
 */
import type { TaskState } from '../types/task';
import { ReplyError } from '../types/errors';
import { script } from '../redis/op';
import { array, maybeNum, maybeText, num, oneOf, text } from '../redis/reply';

/**
 * A finished task's kept outcome (lua/include/outcomes.lua), its body read by state: a done task's
 * result JSON (null for none), a dead one's last error, a merged one's task it was merged into.
 */
export type KeptOutcome = { finishedAt: number; attempts: number; keepUntil: number | null } & (
  | { state: 'done'; result: string | null }
  | { state: 'dead'; error: string; ending: 'failed' | 'unrecoverable' | 'retry-later' }
  | { state: 'merged'; into: string }
  | { state: 'expired' | 'cancelled' }
);

/**
 * The kept outcome's one string: 'state|finished-at|attempts|keep-until|body' (the body may hold
 * '|'); keep-until '' for a done task read from the history (lua/include/history.lua). A dead
 * task's state carries its ending when that is not the usual one: 'dead:unrecoverable',
 * 'dead:retry-later' (lua/include/attempt.lua).
 */
function kept(stored: string): KeptOutcome {
  const m = /^([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([\s\S]*)$/.exec(stored);
  if (!m) throw new ReplyError('result', `the outcome: expected 'state|finished-at|attempts|keep-until|body', got ${JSON.stringify(stored.slice(0, 80))}`);
  const [, state, finishedAt, attempts, keepUntil, body] = m;
  const base = { finishedAt: num('result', finishedAt, 'finished-at'), attempts: num('result', attempts, 'the attempts'), keepUntil: maybeNum('result', keepUntil, 'keep-until') };
  const [named, ending = 'failed'] = state.split(':');
  const s = oneOf('result', named, ['done', 'dead', 'merged', 'expired', 'cancelled'] as const, 'the outcome state');
  if (s === 'done') return { ...base, state: s, result: body === '' ? null : body };
  if (s === 'dead') return { ...base, state: s, error: body, ending: oneOf('result', ending, ['failed', 'unrecoverable', 'retry-later'] as const, 'the ending') };
  if (s === 'merged') return { ...base, state: s, into: body };
  return { ...base, state: s };
}

/** What result.lua knows of a task: its live record, its kept outcome, or nothing. */
export type ResultReply = { stream: string } & (
  { kind: 'live'; meta: string; state: Exclude<TaskState, 'waiting'>; progress: string | null; diedAt: number | null } | { kind: 'kept'; kept: KeptOutcome } | { kind: 'none' }
);

const LIVE_STATES = ['delayed', 'ready', 'active', 'dead'] as const;

/** `stream`: answer the events stream's latest entry id too ('' otherwise). */
export const result = script<{ id: string; stream: boolean }, ResultReply>({
  name: 'result',
  flags: 'no-writes',
  keys: ['tasks', 'delayed', 'active', 'dead', 'results', 'progress', 'events', 'history'],
  args: ['id', 'stream'],
  encode: (i) => [i.id, i.stream ? '1' : '0'],
  decode(reply) {
    const r = array('result', reply, 6);
    const stream = text('result', r[5], 'the stream id');
    const kind = oneOf('result', r[0], ['live', 'kept', 'none'] as const, 'the kind');
    if (kind === 'none') return { kind, stream };
    if (kind === 'kept') return { kind, kept: kept(text('result', r[1], 'the outcome')), stream };
    return {
      kind,
      meta: text('result', r[1], 'the meta'),
      state: oneOf('result', r[2], LIVE_STATES, 'the state'),
      progress: maybeText('result', r[3], 'the progress'),
      diedAt: maybeNum('result', r[4], 'died-at'),
      stream,
    };
  },
});
