/**
 * logs: read one task's log, oldest line first, in one consistent view (include: logs has the
 * layout); a done task's from the history, which keeps its newest entries (include: history).
 */
import { script } from '../redis/op';
import { array, text } from '../redis/reply';

/**
 * A task's stored log as chunks, oldest first, each one or more entries '<at> <line as a JSON
 * string>\n' (lib/life/logs.ts splits and parses them).
 */
export const logs = script<{ id: string }, string[]>({
  name: 'logs',
  flags: 'no-writes',
  keys: ['logs', 'history'],
  args: ['id'],
  encode: (i) => [i.id],
  decode: (reply) => array('logs', reply).map((entry, i) => text('logs', entry, `entry ${i + 1}`)),
});
