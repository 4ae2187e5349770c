/**
 * The CLI's entry point as a function: arguments and streams in, exit code out, so the tests run
 * it in-process against a real Redis. Every argument is checked before connecting; the scheduler
 * is closed whatever happens; failures become one line on stderr, never a stack trace (unless
 * DOCKET_DEBUG=1 asks for the stack of an unexpected one). Everything printed goes through
 * lib/surfaces/printable.ts: names from Redis cannot hide or reorder what the operator reads.
 */
import { createInterface } from 'node:readline';
import { withDeadline } from '../../redis/deadline';
import { ConnectionError, TimeoutError } from '../../types/errors';
import { printable, printableJson, printableLines } from '../printable';
import { hasPassword, urlProblem } from '../../domain/redis-url';
import { createScheduler } from '../facade/scheduler';
import type { Scheduler } from '../../types/scheduler';
import { intArg, readArgs } from './args';
import { UsageError, type Output, type Run, type RunContext } from './command';
import { findCommand } from './commands';
import { fail, type Sources } from './failure';
import { printVersion } from './version';

/** The CLI's view of the process, so tests can hand it their own. */
export interface Io {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown };
  env: Record<string, string | undefined>;
  /** Stops a long-running command (watch) as SIGINT does. */
  signal?: AbortSignal;
  /** Where confirmations are read (purge-dead, clean, obliterate); without it they need --yes. */
  stdin?: NodeJS.ReadableStream;
}

/** What the command line asks for, fully checked. */
interface Plan extends Sources {
  run: Run;
  prefix: string;
  timeout: number;
}

const DEFAULT_URL = 'redis://127.0.0.1:6379';
/** Shorter than the scheduler's 5 s: an operator at a prompt wants a fast answer or a clear error. */
const DEFAULT_TIMEOUT_MS = 3000;

/**
 * Runs the docket CLI on `argv` (without node and the script) and resolves to the exit code:
 * 0 success, 1 failure at run time, 2 bad usage.
 */
export async function main(argv: string[], io: Io): Promise<number> {
  let plan: Plan;
  try {
    plan = planOf(argv, io.env);
  } catch (err) {
    // A line parseArgs refused still said whether it wants JSON: its error is then JSON too.
    return fail(io, err, { json: wantsJson(argv), url: DEFAULT_URL, urlFrom: 'the default', prefixFrom: 'the default' });
  }
  // A flag's value is in the process list (ps, /proc/<pid>/cmdline) for every user of the machine.
  // A URL that does not parse gets its error line alone: the user must retype it anyway.
  if (plan.urlFrom === '--url' && hasPassword(plan.url) && urlProblem(plan.url) === null) {
    io.stderr.write('docket: warning: --url carries a password, which every user of this machine can read in the process list (ps); set REDIS_URL instead\n');
  }
  let opening: Promise<Scheduler> | undefined;
  const interrupt = interruption(io.signal);
  const ctx: RunContext = {
    connect: () => (opening ??= open(plan)),
    out: output(io, plan.json),
    prefix: plan.prefix,
    interrupted: interrupt.signal,
    confirm: (question) => confirm(io, question, plan.json),
  };
  try {
    return await plan.run(ctx);
  } catch (err) {
    return fail(io, err, plan);
  } finally {
    interrupt.dispose();
    await opening?.then((s) => s.close()).catch(() => {});
  }
}

function planOf(argv: string[], env: Io['env']): Plan {
  const a = readArgs(argv);
  const timeout = intArg('timeout', a.timeout, 1, 600_000, DEFAULT_TIMEOUT_MS);
  const base = { json: a.json, ...urlOf(a.url, env), ...prefixOf(a.prefix, env), timeout };
  // --version anywhere prints the version, whatever command the line names (--help wins).
  if (a.version && !a.help) return { ...base, run: printVersion };
  if (a.command === undefined && !a.help) throw new UsageError('missing command');
  const command = a.command === undefined ? undefined : findCommand(a.command);
  // --help anywhere is `docket help [command]`, whatever else the line holds.
  if (a.help || !command) return { ...base, run: findCommand('help').prepare({ args: command ? [command.name] : [], flags: {}, env }) };
  const refused = a.given.find((flag) => !command.flags.includes(flag));
  if (refused) throw new UsageError(`${command.name} does not take --${refused}`);
  return { ...base, run: command.prepare({ ...a.input, env }) };
}

/** Whether `--json` stands among the flags (before a `--` that ends them). */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** The URL to use, and where it came from: --url, else $REDIS_URL (empty counts as unset, as the library reads it). */
function urlOf(flag: string | undefined, env: Io['env']): Pick<Plan, 'url' | 'urlFrom'> {
  if (flag !== undefined) return { url: flag, urlFrom: '--url' };
  const fromEnv = env.REDIS_URL;
  return fromEnv === undefined || fromEnv === '' ? { url: DEFAULT_URL, urlFrom: 'the default' } : { url: fromEnv, urlFrom: 'REDIS_URL' };
}

/** The key prefix to use, and where it came from: --prefix, else $DOCKET_PREFIX (empty counts as unset, as REDIS_URL does). */
function prefixOf(flag: string | undefined, env: Io['env']): Pick<Plan, 'prefix' | 'prefixFrom'> {
  if (flag !== undefined) return { prefix: flag, prefixFrom: '--prefix' };
  const fromEnv = env.DOCKET_PREFIX;
  return fromEnv === undefined || fromEnv === '' ? { prefix: 'docket', prefixFrom: 'the default' } : { prefix: fromEnv, prefixFrom: 'DOCKET_PREFIX' };
}

/**
 * Opens the scheduler within --timeout. node-redis bounds only the TCP connect: a server that
 * accepts but never answers (a stalled Redis, a wrong port) would hang its handshake for ever.
 */
async function open(plan: Plan): Promise<Scheduler> {
  // The url is always passed, so the scheduler never falls back to process.env behind io.env's back;
  // Redis config warnings (no AOF, eviction) are the app's concern, not news on every CLI call.
  const opening = createScheduler({ url: plan.url, prefix: plan.prefix, commandTimeout: plan.timeout, onWarning: () => {} });
  try {
    return await withDeadline(opening, plan.timeout, 'connect');
  } catch (err) {
    // One that opens after all is closed at once; one that never does is left to lib/cli.ts.
    void opening.then((s) => s.close()).catch(() => {});
    throw err instanceof TimeoutError ? new ConnectionError(new Error(`no answer within ${plan.timeout} ms`)) : err;
  }
}

function output(io: Io, json: boolean): Output {
  return {
    json,
    tty: io.stdout.isTTY === true,
    // JSON keeps its meaning with hidden characters as \u escapes; text gets them escaped visibly.
    emit(doc, text) {
      io.stdout.write(json ? `${printableJson(doc, 2)}\n` : printableLines(text()));
    },
    write(text) {
      io.stdout.write(text);
    },
  };
}

/** io.signal, or SIGINT once a command asks: SIGINT is left alone until then (see RunContext). */
function interruption(external: AbortSignal | undefined): { signal(): AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  external?.addEventListener('abort', abort, { once: true });
  if (external?.aborted) abort();
  let listening = false;
  return {
    signal() {
      if (!listening) process.once('SIGINT', abort);
      listening = true;
      return controller.signal;
    },
    dispose() {
      external?.removeEventListener('abort', abort);
      process.removeListener('SIGINT', abort);
    },
  };
}

/**
 * Asks on stderr (stdout may be JSON) and reads one line of stdin: y or yes confirms. Under
 * --json the question's line is ended once answered, so an error after it is a JSON line of its own.
 */
async function confirm(io: Io, question: string, json: boolean): Promise<boolean> {
  if (!io.stdin) throw new UsageError('no terminal to confirm on: pass --yes');
  io.stderr.write(`${printable(question)} [y/N] `);
  const lines = createInterface({ input: io.stdin, terminal: false });
  try {
    // An input that ends before a line (closed stdin) is a no.
    const answer = await new Promise<string>((resolve) => {
      lines.once('line', resolve);
      lines.once('close', () => resolve(''));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    if (json) io.stderr.write('\n');
    lines.close();
  }
}
