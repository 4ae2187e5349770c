/**
 * How a reply is read: one reader per value, each checking what it reads and throwing a
 * ReplyError naming the script (or command) for any other shape, so an op's `decode` (lib/ops/) is
 * its reply's layout and nothing else. Lua's replies reach node-redis as numbers (integers),
 * strings (bulk strings, and numbers a script read from Redis), null (Lua false) and arrays.
 *
 * Also the one reply layout several scripts share: a refused change and why (include: refusals).
 */
import { ReplyError } from '../types/errors';
import type { Refusal, Refused } from '../types/task-calls';

/** The reply as an array; `size` checks its length (a number, or a test of it). */
export function array(script: string, reply: unknown, size?: number | ((length: number) => boolean), what = 'the reply'): unknown[] {
  if (!Array.isArray(reply)) throw wrong(script, what, 'an array', reply);
  if (size !== undefined && !(typeof size === 'number' ? reply.length === size : size(reply.length))) {
    throw new ReplyError(script, `${what} has ${reply.length} entries, which its layout does not allow`);
  }
  return reply;
}

/** A number: an integer reply, or a numeric string read from Redis (a score, a counter). */
export function num(script: string, value: unknown, what: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw wrong(script, what, 'a number', value);
  return n;
}

/** A count: a whole number, 0 or more. */
export function count(script: string, value: unknown, what = 'the reply'): number {
  const n = num(script, value, what);
  if (!Number.isInteger(n) || n < 0) throw new ReplyError(script, `${what}: expected a count, got ${n}`);
  return n;
}

/** A number, or null for '' (the scripts' "none"). */
export function maybeNum(script: string, value: unknown, what: string): number | null {
  return value === '' ? null : num(script, value, what);
}

/** A string. */
export function text(script: string, value: unknown, what: string): string {
  if (typeof value !== 'string') throw wrong(script, what, 'a string', value);
  return value;
}

/** A string, or null for '' (the scripts' "none"). */
export function maybeText(script: string, value: unknown, what: string): string | null {
  return text(script, value, what) === '' ? null : (value as string);
}

/** A string, or null for Lua's false (a missing hash field). */
export function textOrNull(script: string, value: unknown, what: string): string | null {
  return value === null ? null : text(script, value, what);
}

/** 1 or 0, as a boolean. */
export function flag(script: string, value: unknown, what: string): boolean {
  if (value !== 1 && value !== 0) throw wrong(script, what, '1 or 0', value);
  return value === 1;
}

/** One of `options`. */
export function oneOf<T extends string | number>(script: string, value: unknown, options: readonly T[], what: string): T {
  if (!options.includes(value as T)) throw wrong(script, what, `one of ${options.map((o) => JSON.stringify(o)).join(', ')}`, value);
  return value as T;
}

/** The reasons reschedule and priority give. */
export const REFUSALS: readonly Refusal[] = ['missing', 'active', 'dead'];

/** Decodes a refusal reply (`{ reason }`, or `{ 'active', worker }`) among `allowed`. */
export function refusal<R extends string>(script: string, r: unknown[], allowed: readonly R[]): Refused<R> {
  const reason = oneOf(script, r[0], allowed, 'the answer');
  if (reason !== 'active') {
    array(script, r, 1);
    return { done: false, reason };
  }
  array(script, r, 2);
  const worker = text(script, r[1], 'the worker');
  return worker === '' ? { done: false, reason } : { done: false, reason, worker };
}

function wrong(script: string, what: string, expected: string, value: unknown): ReplyError {
  return new ReplyError(script, `${what}: expected ${expected}, got ${shown(value)}`);
}

function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
