/**
 * Logging. docket takes any logger with pino's call shape (`logger.warn(obj, msg)`), so pino,
 * or bunyan, or a small adapter of your own, plugs in as it is. With none given, docket logs
 * nothing: a library should not write to a service's output unasked.
 */
import { UNSHOWABLE_THROWN } from '../types/errors';
import { loggerOption, parse } from './options';
import { canonicalJson } from './payload';
import type { Logger } from '../types/log';

/** Most bytes of JSON thrownText writes for a thrown array, or an object String() cannot show. */
const MAX_JSON_CHARS = 16 * 1024;

const quiet = (): void => {};
export const SILENT: Logger = { info: quiet, warn: quiet };

/** Checks a logger option (loggerOption in domain/options/); a missing level is an error, not a silent gap in the logs. */
export function checkLogger(logger: unknown, field: string): Logger {
  if (logger === undefined) return SILENT;
  const l = parse(loggerOption, logger, field);
  // Bound, so a logger whose methods use `this` (pino's do) keeps working when called detached.
  return { info: l.info.bind(l), warn: l.warn.bind(l) };
}

/** What a log record says of an error: its name, code and message, not the whole object. */
export function errorFields(err: unknown): Record<string, unknown> {
  try {
    if (err instanceof Error) return { err: { name: String(err.name), message: String(err.message), code: (err as { code?: unknown }).code } };
  } catch {
    // A getter that throws: fall through to the text form.
  }
  return { err: thrownText(err) };
}

/**
 * Any thrown value as text, without throwing itself: a handler may throw anything, such as
 * `Object.create(null)` (no toString) or an object whose toString throws, and its failure must
 * still be recorded.
 */
export function thrownText(value: unknown): string {
  try {
    if (value instanceof Error) return String(value.stack ?? `${value.name}: ${value.message}`);
    // String() joins an array at every depth, which never ends for one whose elements share a
    // child ([x, x] forty deep): an array is written as bounded JSON below instead.
    if (!Array.isArray(value)) return String(value);
  } catch {
    // Not convertible by String(): try JSON, then the bare type.
  }
  try {
    // Bounded (JSON.stringify is not: the shared child above takes it for ever too).
    return canonicalJson(value, 'error', { bytes: MAX_JSON_CHARS });
  } catch {
    // Not JSON (a cycle, a function, a getter that throws), or longer than the bound.
  }
  try {
    return Object.prototype.toString.call(value);
  } catch {
    return UNSHOWABLE_THROWN;
  }
}
