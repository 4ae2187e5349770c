/**
 * What the operator reads when a command fails, and its exit code: 2 for bad usage (nothing was
 * sent to Redis), 1 for a failure at run time. One line on stderr, never a stack trace (unless
 * DOCKET_DEBUG=1 asks for the stack of an unexpected one); under --json, that line is
 * `{"error":{"code","message"}}`, so a script reads the code rather than matching the words.
 *
 * This is the CLI's boundary for the library's words too: an error the library throws names its
 * API options (`options.olderThan`, `pass force: true`), which API users read; here the same
 * refusal names the flag or environment variable the operator gave instead.
 */
import { redact } from '../../redis/connection';
import { AmbiguousHashError, ConnectionError, DocketError, QueueActiveError, UnreadableRecordError, ValidationError } from '../../types/errors';
import { thrownText } from '../../domain/log';
import { printable, printableJson, printableLines } from '../printable';
import { RunError, UsageError } from './command';
import { firstLine } from './format';

/** Where the scheduler's options came from, as refusals of them name them, and how to print. */
export interface Sources {
  json: boolean;
  url: string;
  urlFrom: '--url' | 'REDIS_URL' | 'the default';
  prefixFrom: '--prefix' | 'DOCKET_PREFIX' | 'the default';
}

/** The code of an error that is neither docket's nor the CLI's: a bug, or a Node system error's own code. */
const UNEXPECTED = 'ERR_UNEXPECTED';

/** Writes what went wrong to stderr and returns the exit code for it. */
export function fail(io: { stderr: { write(s: string): unknown }; env: Record<string, string | undefined> }, err: unknown, from: Sources): number {
  const usage = err instanceof UsageError || err instanceof ValidationError;
  const message = usage ? usageMessage(err, from) : describe(err, from.url);
  if (from.json) {
    io.stderr.write(`${printableJson({ error: { code: codeOf(err), message } })}\n`);
  } else {
    io.stderr.write(`docket: ${printable(message)}\n${usage ? "Run 'docket help' for usage.\n" : ''}`);
  }
  if (!usage && io.env.DOCKET_DEBUG === '1' && isError(err) && err.stack) io.stderr.write(`${printableLines(err.stack)}\n`);
  return usage ? 2 : 1;
}

/** The error's stable code: docket's own (`ERR_QUEUE_ACTIVE`), the CLI's (`ERR_USAGE`), or a system error's (`EPIPE`). */
function codeOf(err: unknown): string {
  if (err instanceof DocketError || err instanceof UsageError || err instanceof RunError) return err.code;
  const code = (err as { code?: unknown } | null)?.code;
  return isError(err) && typeof (err as { syscall?: unknown }).syscall === 'string' && typeof code === 'string' ? code : UNEXPECTED;
}

/**
 * A ValidationError is an option the scheduler refused (`options.prefix`, `options.olderThan`):
 * named as the flag the operator typed (`--older-than`), or for the URL and the prefix, where each
 * came from (--url or REDIS_URL, --prefix or DOCKET_PREFIX). Its message is `<field>: <why>`.
 */
function usageMessage(err: UsageError | ValidationError, from: Sources): string {
  if (!(err instanceof ValidationError) || !err.field.startsWith('options.')) return err.message;
  const option = err.field.slice('options.'.length);
  return `invalid ${optionSource(option, from)}: ${err.message.slice(err.field.length + 2)}`;
}

/** What the operator gave for the API option `option`: its flag (camelCase as kebab-case), or its variable. */
function optionSource(option: string, from: Sources): string {
  if (option === 'url' && from.urlFrom !== 'the default') return from.urlFrom;
  if (option === 'prefix' && from.prefixFrom !== 'the default') return from.prefixFrom;
  return `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

function describe(err: unknown, url: string): string {
  const where = redact(url);
  // Refusals in the operator's own terms: no Redis error, so no 'Redis at <url>' before them.
  if (err instanceof RunError || err instanceof AmbiguousHashError) return err.message;
  if (err instanceof ConnectionError) {
    // The innermost cause says why (ECONNREFUSED, ENOTFOUND); drop its repeat of the URL.
    return `cannot reach Redis at ${where}: ${rootCause(err).replace(`cannot connect to ${where}: `, '')}`;
  }
  // The API's words are `pass force: true`; the operator's are --force.
  if (err instanceof QueueActiveError) {
    return `queue ${err.queue} has ${err.active} active task${err.active === 1 ? '' : 's'}: stop its workers first, or pass --force`;
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
