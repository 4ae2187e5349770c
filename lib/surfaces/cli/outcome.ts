/**
 * Task outcomes in the CLI: `docket result`, and what `docket inspect` shows of a task that has
 * finished but whose outcome was kept (put option keepResult). Results, errors and progress are
 * other people's values, up to 64 KiB: they are shown escaped (lib/surfaces/printable.ts) and cut, and
 * `--json` gives them whole.
 */
import { ENCRYPTED } from '../../domain/crypto';
import { MAX_ERROR_CHARS } from '../../domain/domain';
import type { LiveOutcome, TaskOutcome } from '../../types/outcome';
import { resolveHash } from '../hash-prefix';
import type { Scheduler } from '../../types/scheduler';
import { hashArg, queueArg, waitArg } from './args';
import { positionals, TargetError, type Command, type Output } from './command';
import { cut, fields, instant, jsonValue, NONE } from './format';

/** How much of a progress or result value the text shows; --json shows all of it. */
const SHOWN_VALUE_CHARS = 500;

/** A value's line: `-` for none, else its JSON, escaped and cut. */
export function valueText(value: unknown): string {
  return value === null || value === undefined ? NONE : jsonValue(value, SHOWN_VALUE_CHARS);
}

/** Whether the task has not finished yet (result() answers its live state). */
export function isLive(o: TaskOutcome): o is LiveOutcome {
  return o.state === 'pending' || o.state === 'active';
}

/** Label/value lines of an outcome; `note` follows the state (`done (finished; kept outcome)`). */
export function outcomeText(o: TaskOutcome, now: number, note = ''): string {
  const head: Array<[string, string]> = [
    ['hash', o.hash],
    ['queue', o.queue],
    ['state', `${o.state}${note}`],
  ];
  if (isLive(o)) {
    return fields([...head, ['run at', instant(o.runAt, now)], ['attempts', String(o.attempts)], ['progress', o.encrypted ? ENCRYPTED : valueText(o.progress)]]);
  }
  const rows: Array<[string, string]> = [...head, ['finished', instant(o.finishedAt, now)], ['attempts', String(o.attempts)]];
  // A done task's result is JSON: `null` when its handler returned nothing, or nothing was kept.
  if (o.state === 'done') rows.push(['result', o.encrypted ? ENCRYPTED : jsonValue(o.result, SHOWN_VALUE_CHARS)]);
  if (o.state === 'dead') rows.push(['ending', o.ending], ['error', o.error === null ? NONE : cut(o.error, MAX_ERROR_CHARS)]);
  // An outcome that names another task (one merged into a waiting task of its identity).
  if ('into' in o && typeof o.into === 'string') rows.push(['into', o.into]);
  return fields(rows);
}

/**
 * What inspect shows of a task get() no longer finds: its kept outcome, if it has one. Resolves
 * false when docket knows nothing of the hash (then inspect says there is no task).
 */
export async function showKept(s: Scheduler, queue: string, hash: string, out: Output): Promise<boolean> {
  const outcome = await s.result(hash, { queue });
  if (outcome === null) return false;
  const now = await s.time();
  // A task put again between the two reads is live: shown as result() has it, without the note.
  out.emit({ now, outcome }, () => outcomeText(outcome, now, isLive(outcome) ? '' : ' (finished; its kept outcome)'));
  return true;
}

export const result: Command = {
  name: 'result',
  usage: '<queue> <hash> [--wait <span>]',
  summary: "a task's outcome: its live state, or how it finished when its outcome was kept",
  details:
    'A finished task is known only while its outcome is kept (put option keepResult). With --wait,\n' +
    'waits up to that long for the task to finish, then shows what is known (its live state if it has not).',
  flags: ['wait'],
  prepare(input) {
    const [name, given] = positionals('result', input, ['queue', 'hash']);
    const queue = queueArg(name);
    const short = hashArg(given);
    const wait = waitArg(input.flags.wait);
    return async ({ connect, out }) => {
      const s = await connect();
      const hash = await resolveHash(s, queue, short);
      const outcome = await s.result(hash, { queue, wait });
      if (outcome === null) {
        throw new TargetError(`nothing known of task ${hash} in queue '${queue}' (never put, or finished without keepResult, or past its span)`);
      }
      const now = await s.time();
      out.emit({ now, outcome }, () => outcomeText(outcome, now));
      return 0;
    };
  },
};
