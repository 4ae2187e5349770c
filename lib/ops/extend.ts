/** extend: move a held lease's deadline to now + by, if the caller still holds it (fencing). */
import { script } from '../redis/op';
import { num } from '../redis/reply';

/** The new lease deadline (ms), or null when the lease was lost. */
export const extend = script<{ id: string; token: string; by: number }, number | null>({
  name: 'extend',
  flags: 'allow-oom',
  keys: ['active', 'tasks'],
  args: ['id', 'token', 'by'],
  encode: (i) => [i.id, i.token, i.by],
  decode(reply) {
    const until = num('extend', reply, 'the reply');
    return until === 0 ? null : until;
  },
});
