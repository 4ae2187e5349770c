/**
 * Start-up checks of the server's settings that docket's guarantees depend on. They only warn:
 * a user may not be allowed to read the config (a restricted ACL), or may accept the risk.
 */
import type { Connection } from './connection';
import { setOnce } from '../ops/commands/keyspace';
import { configGet } from '../ops/commands/server';
import { routed, type Via } from '../ops/commands/via';

/** How long one AOF warning holds for a server: every process of a service starts within a day of its last one. */
export const AOF_WARNING_TTL_MS = 24 * 3600 * 1000;

/** Where the checks run and which ones: `aof` false skips the AOF check (options.warnings.aof). */
export interface CheckPlan {
  /** A key of the default queue: on a cluster, the reads go to the node that owns its slot. */
  firstKey: string;
  /** The marker of the day's AOF warning (the queue's `warned` key), in the same slot. */
  marker: string;
  aof: boolean;
  /**
   * Whether the AOF warning is given once a day (the marker) or at every start. Once a day when
   * docket prints it itself (no onWarning): a caller's onWarning gets every warning, as it always
   * did, since docket cannot tell whether it showed one, and a tool that drops them (the CLI) must
   * not use up the day's warning of the services on that server.
   */
  daily: boolean;
  timeoutMs: number;
}

/** What to warn about, with the setting that fixes it; `aof` marks the AOF check (options.warnings.aof, once a day). */
const CHECKS: Array<{ parameter: string; aof: boolean; good: (value: string) => boolean; warning: (value: string) => string }> = [
  {
    parameter: 'maxmemory-policy',
    aof: false,
    good: (value) => value === 'noeviction',
    warning: (value) => `Redis maxmemory-policy is '${value}': under memory pressure Redis may evict docket's keys and the tasks in them. Set maxmemory-policy noeviction.`,
  },
  {
    parameter: 'appendonly',
    aof: true,
    good: (value) => value === 'yes',
    warning: () => 'Redis AOF is off (appendonly no): a Redis crash loses every task written since the last snapshot. Set appendonly yes.',
  },
];

/** Reads each setting with CONFIG GET; a refused or failed read is skipped without a word. */
export async function checkServer(conn: Connection, plan: CheckPlan, warn: (message: string) => void): Promise<void> {
  const via = routed(conn, plan.firstKey, { ms: plan.timeoutMs, what: 'CONFIG GET' });
  for (const check of CHECKS) {
    if (check.aof && !plan.aof) continue;
    let value: string;
    try {
      value = (await configGet(via, check.parameter)).get(check.parameter) ?? '';
    } catch {
      continue; // no CONFIG rights (ACL), or a managed Redis that hides CONFIG (or answers it oddly)
    }
    if (!value || check.good(value)) continue;
    if (check.aof && plan.daily && !(await firstToday(routed(conn, plan.marker, { ms: plan.timeoutMs, what: 'SET' }), plan.marker))) continue;
    try {
      warn(check.warning(value));
    } catch {
      // A throwing warning handler must not stop the scheduler from starting.
    }
  }
}

/**
 * Whether this process is the first to start on this server (and default queue) in the last day: the one
 * whose SET NX makes the marker. When the marker cannot be written (a user whose ACL refuses SET
 * on it, a timeout), it warns as every process did before: a setting that can lose tasks is worth
 * a repeated line, and a service that has weighed it turns it off with `warnings: { aof: false }`.
 */
async function firstToday(via: Via, marker: string): Promise<boolean> {
  try {
    return await setOnce(via, marker, AOF_WARNING_TTL_MS);
  } catch {
    return true;
  }
}
