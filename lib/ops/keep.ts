/**
 * keep: set how many finished tasks a queue keeps, and how long, separately for done tasks (its
 * history) and dead ones, in the queue's `keep` hash, which every claim reads.
 */
import { script } from '../redis/op';
import { num } from '../redis/reply';

/** Each cap, or null to leave it as it is. */
export interface KeepInput {
  doneCount: number | null;
  doneAge: number | null;
  deadCount: number | null;
  deadAge: number | null;
}

/** How many caps were set. */
export const keep = script<KeepInput, number>({
  name: 'keep',
  flags: 'allow-oom',
  keys: ['keep'],
  args: ['doneCount', 'doneAge', 'deadCount', 'deadAge'],
  encode: (i) => [i.doneCount ?? '', i.doneAge ?? '', i.deadCount ?? '', i.deadAge ?? ''],
  decode: (reply) => num('keep', reply, 'the caps set'),
});
