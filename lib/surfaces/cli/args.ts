/**
 * The command line, read with node:util's parseArgs in strict mode: every flag is declared here
 * once, global flags may stand before or after the command, and every value is checked before
 * the CLI connects to Redis.
 */
import { parseArgs } from 'node:util';
import { STATES } from '../../features/admin';
import { MAX_WAIT_MS, queueName, taskHash } from '../../domain/options';
import type { TaskState } from '../../types/task';
import { UsageError, type CommandFlags } from './command';

/** Every flag of every command, as parseArgs declares them. */
const OPTIONS = {
  url: { type: 'string' },
  prefix: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  state: { type: 'string' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  all: { type: 'boolean' },
  interval: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'insecure-no-token': { type: 'boolean' },
  wait: { type: 'string' },
  concurrency: { type: 'string' },
  rate: { type: 'string' },
  'group-limit': { type: 'string' },
  'group-rate': { type: 'string' },
  group: { type: 'string' },
  hold: { type: 'string' },
  'older-than': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  force: { type: 'boolean' },
  running: { type: 'boolean' },
  queue: { type: 'string' },
  'remove-unused': { type: 'boolean' },
} as const;

/**
 * What help prints for each flag: how it is written, and what it does. help.ts lays them out and
 * wraps the words to fit 100 columns.
 */
export const FLAG_HELP: Record<keyof typeof OPTIONS, readonly [string, string]> = {
  url: ['--url <redis-url>', 'Redis to use (default $REDIS_URL, else redis://127.0.0.1:6379); every user of the machine sees it in the process list: give a password in $REDIS_URL instead'],
  prefix: ['--prefix <prefix>', "key prefix of the scheduler (default $DOCKET_PREFIX, else 'docket')"],
  timeout: ['--timeout <ms>', 'deadline of connecting and of each Redis call (default 3000)'],
  json: ['--json', 'print JSON instead of a table; an error is then one JSON line on stderr: {"error":{"code","message"}}'],
  help: ['-h, --help', 'show help'],
  version: ['--version', 'print the version of docket'],
  state: ['--state <state>', 'ready, delayed, waiting, active, dead or done (required)'],
  limit: ['--limit <n>', 'most tasks to list, 1 to 1000 (default 100)'],
  offset: ['--offset <n>', 'tasks to skip first (default 0)'],
  all: ['--all', 'every dead task of the queue'],
  interval: ['--interval <seconds>', 'time between frames, 0.1 to 3600 (default 1)'],
  port: ['--port <n>', 'port to listen on, 0 for a free one (default 8650)'],
  host: ['--host <address>', 'address to bind (default 127.0.0.1: this machine only); any other asks for a token'],
  token: ['--token <token>', 'require this token (16+ characters) from every request; every user of the machine sees it in the process list: prefer --token-file or $DOCKET_DASHBOARD_TOKEN'],
  'token-file': ['--token-file <path>', 'read the token from this file (surrounding white space trimmed)'],
  'insecure-no-token': [
    '--insecure-no-token',
    'serve without a token on any --host: anyone who can reach the port can change tasks; only behind a proxy of your own that authenticates every request',
  ],
  wait: ['--wait <span>', 'wait up to this long for the task to finish: 500ms, 30s, 5m, 2h or 1d (default: answer at once)'],
  concurrency: ['--concurrency <n|off>', 'most tasks of the queue leased at once, 1 to 100000, across every worker; off removes it'],
  rate: ['--rate <max>/<span>', 'most claims of the queue in any window of <span>: 100/1m, 5/1s (span up to 30d); off removes it'],
  'group-limit': ['--group-limit <n|off>', "most active tasks per group, 1 to 100000 (with --group: that group's own); off removes it"],
  'group-rate': ['--group-rate <rate>', "most claims per group in any window, as --rate takes it (with --group: that group's own); off removes it"],
  group: [
    '--group <name>',
    'the group whose own --group-limit or --group-rate is set (default: every group without its own); pause, resume: only this group (its tasks stay put; the others run)',
  ],
  hold: ['--hold <span>', 'no claim of the queue for this long, from the Redis clock: 30s, 5m, 1h (backoffQueue)'],
  'older-than': ['--older-than <span>', 'only tasks put (dead ones: died) at least this long ago: 30s, 5m, 1h, 7d'],
  yes: ['-y, --yes', 'do it without asking for confirmation'],
  force: ['--force', 'even while tasks of the queue are leased (their workers lose them)'],
  running: ['--running', 'an active task too: its worker aborts its handler at its next heartbeat'],
  queue: ['--queue <queue>', 'only this queue (as the <queue> argument; default: every queue in the registry)'],
  'remove-unused': ['--remove-unused', "delete the libraries that no connection names and that are not this docket's, after confirmation"],
};

/** Flags every command takes. */
export const GLOBAL_FLAGS = ['url', 'prefix', 'timeout', 'json', 'help', 'version'] as const;

/** The command line, split up but not yet checked against a command. */
export interface Argv {
  command: string | undefined;
  input: { args: string[]; flags: CommandFlags };
  /** Command-specific flags that were given, to refuse those the command does not take. */
  given: Array<keyof CommandFlags>;
  url?: string;
  prefix?: string;
  timeout?: string;
  json: boolean;
  help: boolean;
  version: boolean;
}

/** Splits `argv` into command, positionals and flags; unknown flags are a UsageError. */
export function readArgs(argv: string[]): Argv {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    // parseArgs' messages span lines and end in advice on '--' and '=-' that is noise here.
    if (isParseError(err)) throw new UsageError(err.message.replace(/\s*To specify .*$/s, '').replace(/\s*\n\s*/g, ' '));
    throw err;
  }
  const { url, prefix, timeout, json, help, version, ...flags } = parsed.values;
  const [command, ...args] = parsed.positionals;
  const given = (Object.keys(flags) as Array<keyof CommandFlags>).filter((k) => flags[k] !== undefined);
  return { command, input: { args, flags }, given, url, prefix, timeout, json: json === true, help: help === true, version: version === true };
}

/** By code, not instanceof Error: an error from another realm (a jest sandbox) is no `Error` here. */
function isParseError(err: unknown): err is { message: string } {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_') && typeof message === 'string';
}

/** A queue name, checked by the same rule the scheduler applies. */
export function queueArg(text: string | undefined): string {
  const result = queueName.safeParse(text);
  if (!result.success) throw new UsageError(`invalid queue name '${text}': ${result.error.issues[0].message}`);
  return result.data;
}

/** A task hash as put() returned it, checked by the same rule the scheduler applies (taskHash). */
export function hashArg(text: string | undefined): string {
  const result = taskHash.safeParse(text);
  if (!result.success) throw new UsageError(`invalid hash '${text ?? ''}': ${result.error.issues[0].message}`);
  return result.data;
}

/** `--state`: required, one of the states (STATES). */
export function stateArg(text: string | undefined): TaskState {
  if (text === undefined) throw new UsageError(`list: missing --state (one of ${STATES.join(', ')})`);
  if (!(STATES as readonly string[]).includes(text)) throw new UsageError(`bad --state '${text}': expected one of ${STATES.join(', ')}`);
  return text as TaskState;
}

/** A whole-number flag value from `min` to `max`, or `fallback` when the flag was not given. */
export function intArg(flag: string, text: string | undefined, min: number, max: number, fallback: number): number {
  if (text === undefined) return fallback;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`bad --${flag} '${text}': expected a whole number from ${min} to ${max}`);
  return n;
}

/** `--interval` in seconds (fractions allowed), as ms: at least 0.1 s, so watch cannot flood Redis. */
export function intervalArg(text: string | undefined): number {
  if (text === undefined) return 1000;
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(seconds >= 0.1 && seconds <= 3600)) throw new UsageError(`bad --interval '${text}': expected seconds from 0.1 to 3600`);
  return Math.round(seconds * 1000);
}

const SPAN_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A span as the CLI writes it, in ms: a whole number with its unit (`500ms`, `30s`, `5m`, `2h`,
 * `1d`); NaN for anything else. A bare number is refused: seconds or milliseconds would be a guess.
 */
export function spanMs(text: string): number {
  const m = /^(\d{1,10})(ms|s|m|h|d)$/.exec(text);
  return m ? Number(m[1]) * SPAN_MS[m[2]] : NaN;
}

/** `--wait` as ms (spanMs), at most what result() waits (24 days). */
export function waitArg(text: string | undefined): number {
  if (text === undefined) return 0;
  const ms = spanMs(text);
  if (!(ms <= MAX_WAIT_MS)) throw new UsageError(`bad --wait '${text}': expected a span such as 500ms, 30s, 5m, 2h or 1d, at most 24 days`);
  return ms;
}
