/**
 * access: which of the given command lines the connection's ACL user may not run. Writes nothing,
 * and touches no key: redis.acl_check_cmd (Redis 7.0+) only asks the ACL, for the command and for
 * the key names in its arguments, as Redis would check them had the line been run.
 */
import { ReplyError } from '../types/errors';
import { script } from '../redis/op';
import { array, num, text } from '../redis/reply';

/** A command line the ACL user may not run: its index in the input, and Redis's reason ('' when it is the ACL). */
export interface AccessRefusal {
  line: number;
  reason: string;
}

/** The lines refused, or null when this Redis cannot be asked (no redis.acl_check_cmd: before 7.0). */
export const access = script<{ lines: ReadonlyArray<readonly string[]> }, AccessRefusal[] | null>({
  name: 'access',
  flags: 'no-writes',
  keys: ['tasks'],
  args: [],
  each: ['line'],
  encode: (i) => i.lines.map((line) => JSON.stringify(line)),
  decode(reply, input) {
    if (reply === null) return null;
    const r = array('access', reply, (n) => n % 2 === 0);
    const refused: AccessRefusal[] = [];
    for (let i = 0; i < r.length; i += 2) {
      const line = num('access', r[i], 'a line index') - 1;
      if (!Number.isInteger(line) || line < 0 || line >= input.lines.length)
        throw new ReplyError('access', `line index ${String(r[i])} is not one of the ${input.lines.length} lines asked about`);
      refused.push({ line, reason: text('access', r[i + 1], 'a reason') });
    }
    return refused;
  },
});
