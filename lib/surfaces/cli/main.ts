/**
 * The CLI's entry point as a function: arguments and streams in, exit code out, so the tests run
 * it in-process against a real Redis. Every argument is checked before connecting; the scheduler
 * is closed whatever happens; failures become one line on stderr, never a stack trace (unless
 * DOCKET_DEBUG=1 asks for the stack of an unexpected one). Everything printed goes through
 * lib/surfaces/printable.ts: names from Redis cannot hide or reorder what the operator reads.
 */
import { createInterface } from 'node:readline';
import { redact } from '../../redis/connection';
import { withDeadline } from '../../redis/deadline';
import { ConnectionError, DocketError, TimeoutError, UnreadableRecordError, ValidationError } from '../../domain/errors';
import { thrownText } from '../../domain/log';
import { printable, printableJson, printableLines } from '../printable';
import { hasPassword, urlProblem } from '../../domain/redis-url';
import { createScheduler, type Scheduler } from '../scheduler';
import { intArg, readArgs } from './args';
import { RunError, UsageError, type Output, type Run, type RunContext } from './command';
import { findCommand } from './commands';
import { firstLine } from './format';
import { printVersion } from './version';

/** The CLI's view of the process, so tests can hand it their own. */
export interface Io {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown };
  env: Record<string, string | undefined>;
  /** Stops a long-running command (watch) as SIGINT does. */
  signal?: AbortSignal;
  /** Where confirmations are read (clean, obliterate); without it they need --yes. */
  stdin?: NodeJS.ReadableStream;
}

/** What the command line asks for, fully checked. */
interface Plan {
  run: Run;
  json: boolean;
  url: string;
  /** Where the URL came from, as errors about it name it. */
  urlFrom: '--url' | 'REDIS_URL' | 'the default';
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
    return fail(io, err, DEFAULT_URL, 'the default');
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
    confirm: (question) => confirm(io, question),
  };
  try {
    return await plan.run(ctx);
  } catch (err) {
    return fail(io, err, plan.url, plan.urlFrom);
  } finally {
    interrupt.dispose();
    await opening?.then((s) => s.close()).catch(() => {});
  }
}

function planOf(argv: string[], env: Io['env']): Plan {
  const a = readArgs(argv);
  const timeout = intArg('timeout', a.timeout, 1, 600_000, DEFAULT_TIMEOUT_MS);
  const base = { json: a.json, ...urlOf(a.url, env), prefix: a.prefix ?? 'docket', timeout };
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

/** The URL to use, and where it came from: --url, else $REDIS_URL (empty counts as unset, as the library reads it). */
function urlOf(flag: string | undefined, env: Io['env']): Pick<Plan, 'url' | 'urlFrom'> {
  if (flag !== undefined) return { url: flag, urlFrom: '--url' };
  const fromEnv = env.REDIS_URL;
  return fromEnv === undefined || fromEnv === '' ? { url: DEFAULT_URL, urlFrom: 'the default' } : { url: fromEnv, urlFrom: 'REDIS_URL' };
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

/** Asks on stderr (stdout may be JSON) and reads one line of stdin: y or yes confirms. */
async function confirm(io: Io, question: string): Promise<boolean> {
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
    lines.close();
  }
}

/** Writes what went wrong to stderr and returns the exit code for it. */
function fail(io: Io, err: unknown, url: string, urlFrom: Plan['urlFrom']): number {
  if (err instanceof UsageError || err instanceof ValidationError) {
    io.stderr.write(`docket: ${printable(usageMessage(err, urlFrom))}\nRun 'docket help' for usage.\n`);
    return 2;
  }
  io.stderr.write(`docket: ${printable(describe(err, url))}\n`);
  if (io.env.DOCKET_DEBUG === '1' && isError(err) && err.stack) io.stderr.write(`${printableLines(err.stack)}\n`);
  return 1;
}

/**
 * A ValidationError is an option the scheduler refused before any I/O (`options.prefix`): named
 * as the flag the operator typed, or for the URL, where it came from (--url or REDIS_URL). Its
 * message is `<field>: <why>`.
 */
function usageMessage(err: UsageError | ValidationError, urlFrom: Plan['urlFrom']): string {
  if (!(err instanceof ValidationError) || !err.field.startsWith('options.')) return err.message;
  const option = err.field.slice('options.'.length);
  return `invalid ${option === 'url' ? urlFrom : `--${option}`}: ${err.message.slice(err.field.length + 2)}`;
}

function describe(err: unknown, url: string): string {
  const where = redact(url);
  if (err instanceof RunError) return err.message;
  if (err instanceof ConnectionError) {
    // The innermost cause says why (ECONNREFUSED, ENOTFOUND); drop its repeat of the URL.
    return `cannot reach Redis at ${where}: ${rootCause(err).replace(`cannot connect to ${where}: `, '')}`;
  }
  // A record that is not JSON (written by hand, or by another program): the operator should know it is data.
  if (err instanceof UnreadableRecordError) return `a record in Redis is unreadable: ${firstLine(`${err.what}: ${thrownText(err.cause)}`, 200)}`;
  if (err instanceof DocketError) return `Redis at ${where}: ${err.message}`;
  // thrownText, not String(): a thrown Object.create(null) has no toString.
  if (!isError(err)) return `unexpected error: ${thrownText(err)}`;
  // A Node system error (EPIPE, EMFILE) says what happened in its message.
  if (typeof (err as { syscall?: unknown }).syscall === 'string') return err.message;
  // Not a docket error: a bug in the CLI. DOCKET_DEBUG=1 prints the stack that will find it.
  return `unexpected error: ${err.name}: ${err.message.split('\n', 1)[0]} (DOCKET_DEBUG=1 prints its stack)`;
}

/** By shape, not instanceof: an error from another realm (node internals under jest) is no `Error` here. */
function isError(err: unknown): err is Error {
  const e = err as { name?: unknown; message?: unknown } | null;
  return typeof e === 'object' && e !== null && typeof e.name === 'string' && typeof e.message === 'string';
}

function rootCause(err: Error): string {
  let e: Error = err;
  while (e.cause instanceof Error) e = e.cause;
  return e.message;
}
