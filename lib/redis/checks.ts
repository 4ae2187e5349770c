/**
 * Start-up checks of the server's settings that docket's guarantees depend on. They only warn:
 * a user may not be allowed to read the config (a restricted ACL), or may accept the risk.
 */
import type { Connection } from './connection';
import { configGet } from '../ops/commands/server';
import { routed } from '../ops/commands/via';

/** What to warn about, with the setting that fixes it. */
const CHECKS: Array<{ parameter: string; good: (value: string) => boolean; warning: (value: string) => string }> = [
  {
    parameter: 'maxmemory-policy',
    good: (value) => value === 'noeviction',
    warning: (value) => `Redis maxmemory-policy is '${value}': under memory pressure Redis may evict docket's keys and the tasks in them. Set maxmemory-policy noeviction.`,
  },
  {
    parameter: 'appendonly',
    good: (value) => value === 'yes',
    warning: () => 'Redis AOF is off (appendonly no): a Redis crash loses every task written since the last snapshot. Set appendonly yes.',
  },
];

/** Reads each setting with CONFIG GET; a refused or failed read is skipped without a word. */
export async function checkServer(conn: Connection, firstKey: string, warn: (message: string) => void, timeoutMs: number): Promise<void> {
  for (const check of CHECKS) {
    let value: string;
    try {
      value = (await configGet(routed(conn, firstKey, { ms: timeoutMs, what: 'CONFIG GET' }), check.parameter)).get(check.parameter) ?? '';
    } catch {
      continue; // no CONFIG rights (ACL), or a managed Redis that hides CONFIG (or answers it oddly)
    }
    if (!value || check.good(value)) continue;
    try {
      warn(check.warning(value));
    } catch {
      // A throwing warning handler must not stop the scheduler from starting.
    }
  }
}
