/**
 * obliterate: delete every key of a queue (every suffix of lib/domain/keys.ts), unless tasks of it
 * are leased and force is not given, with UNLINK (Redis frees a large key in a background thread).
 * Tasks of other queues are not stranded: the steps they need stay behind in `outbox`, the one key
 * not deleted then, and the answer says 'carry': the caller carries them (lib/features/deps.ts)
 * and calls again, which deletes the outbox once it is empty.
 */
import { SUFFIXES } from '../domain/keys';
import { script } from '../redis/op';
import { array, num, oneOf } from '../redis/reply';

/**
 * `ok`: every key deleted; `carry`: every key but the outbox, whose steps for other queues the
 * caller carries before it calls again; `active`: refused, `leased` tasks are held (nothing deleted).
 */
export type Obliterated = { status: 'ok' | 'carry'; deleted: number } | { status: 'active'; leased: number };

export const obliterate = script<{ force: boolean }, Obliterated>({
  name: 'obliterate',
  flags: 'allow-oom',
  keys: SUFFIXES,
  args: ['force'],
  encode: (i) => [i.force ? 1 : 0],
  decode(reply) {
    const r = array('obliterate', reply, 2);
    const status = oneOf('obliterate', r[0], ['ok', 'carry', 'active'] as const, 'the status');
    const n = num('obliterate', r[1], 'the count');
    return status === 'active' ? { status, leased: n } : { status, deleted: n };
  },
});
