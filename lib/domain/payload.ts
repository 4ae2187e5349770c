/**
 * Canonical JSON: the form in which a payload is hashed, stored and compared. Object keys are
 * sorted at every depth, so `{a:1,b:2}` and `{b:2,a:1}` are the same task; array order matters.
 * Anything JSON cannot carry faithfully is refused, naming where it sits, instead of being
 * silently changed (JSON.stringify drops undefined and functions, and turns NaN into null).
 */
import { DocketError, PayloadTooLargeError, unreadable, UnreadableRecordError, ValidationError } from '../types/errors';
import type { Json } from '../types/json';

/**
 * A stored record (a payload, a task's metadata, a result) read back: docket wrote it as JSON, but
 * a record written by something else may not be, and that is an UnreadableRecordError naming
 * `what`, not the parser's bare SyntaxError.
 */
export function parseRecord<T = Json>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new UnreadableRecordError(what, err);
  }
}

/**
 * The deepest nesting of arrays and objects accepted in a payload, result or progress value: `[]`
 * is 1 level, `{ "a": [] }` 2. Ruby's JSON (so Sidekiq) stops at the same 100, and real payloads
 * rarely pass 10. It keeps every walk of a value short: the writer below takes one stack frame a
 * level, so no input reaches a stack overflow, and Redis's Lua cjson, which refuses more than
 * 1,000 levels (encoding or decoding), could read any stored value.
 */
export const MAX_DEPTH = 100;

/** The size limit a value is serialised under (see canonicalJson). */
export interface SizeLimit {
  /** Most bytes of JSON: writing stops once the text is surely longer. */
  bytes: number;
  /** What the value is, for PayloadTooLargeError's message: 'payload', 'result', 'progress'. */
  what?: string;
}

/**
 * Serialises `value` canonically, or throws a ValidationError naming the offending path (a value
 * nested deeper than MAX_DEPTH included). With `limit`, a value whose text is surely over
 * `limit.bytes` is refused with a PayloadTooLargeError as soon as that is clear, so an object
 * graph that shares one child many times (`[x, x]` a few dozen levels deep) cannot make it write
 * gigabytes before a size check; a text that is over it once written whole is refused as well.
 */
export function canonicalJson(value: unknown, field = 'data', limit?: SizeLimit): string {
  const state: State = { field, seen: new Set(), maxChars: limit?.bytes ?? Infinity, what: limit?.what ?? 'payload' };
  let text: string;
  try {
    // The careful writer runs only to name what is wrong.
    text = quick(value, 0, state.maxChars) ?? write(value, field, 0, state);
  } catch (err) {
    if (err instanceof DocketError) throw err;
    // The value's own doing: a getter or a proxy trap threw (or, with no limit, the text outgrew
    // what a string can hold). The walk is bounded, so this is never a stack overflow.
    throw unreadable(field, err);
  }
  if (limit !== undefined && text.length * 3 > limit.bytes) {
    // Only a text that might be over the limit is measured: a UTF-16 unit is 1 to 3 bytes of UTF-8.
    const bytes = Buffer.byteLength(text);
    if (bytes > limit.bytes) throw new PayloadTooLargeError(field, bytes, limit.bytes, state.what);
  }
  return text;
}

interface State {
  field: string;
  seen: Set<object>;
  /**
   * A text longer than this many UTF-16 units is surely over the byte limit: each unit is at
   * least one byte of UTF-8.
   */
  maxChars: number;
  what: string;
}

/**
 * The hot path: the same output as write() for every valid value, without building a path for
 * each field or tracking cycles (depth is bounded instead). Returns undefined for anything that
 * write() would refuse: invalid, nested deeper than MAX_DEPTH, or longer than `maxChars`.
 */
function quick(value: unknown, depth: number, maxChars: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH) return undefined;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) return undefined;
          const part = quick(value[i], depth + 1, maxChars);
          if (part === undefined) return undefined;
          out += i === 0 ? part : `,${part}`;
          if (out.length > maxChars) return undefined;
        }
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(value).length > 0) return undefined;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const part = quick(record[keys[i]], depth + 1, maxChars);
        if (part === undefined) return undefined;
        out += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${part}`;
        if (out.length > maxChars) return undefined;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

function write(value: unknown, path: string, depth: number, state: State): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) refuse(path, `${value} is not a finite number`);
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      if (state.seen.has(value)) refuse(path, 'is a cycle back to an enclosing value');
      // Checked before going in: the walk never goes deeper than MAX_DEPTH frames.
      if (depth >= MAX_DEPTH) refuse(path, `is nested deeper than the limit of ${MAX_DEPTH} levels of arrays and objects`);
      state.seen.add(value);
      try {
        return Array.isArray(value) ? writeArray(value, path, depth, state) : writeObject(value, path, depth, state);
      } finally {
        state.seen.delete(value);
      }
    default:
      // undefined, bigint, function, symbol
      return refuse(path, `${typeof value} cannot be carried by JSON`);
  }
}

function writeArray(value: unknown[], path: string, depth: number, state: State): string {
  const parts: string[] = [];
  let chars = 2;
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) refuse(`${path}[${i}]`, 'is a hole in a sparse array');
    const part = write(value[i], `${path}[${i}]`, depth + 1, state);
    parts.push(part);
    chars += part.length + 1;
    if (chars > state.maxChars) tooLarge(state, chars);
  }
  return `[${parts.join(',')}]`;
}

function writeObject(value: object, path: string, depth: number, state: State): string {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    // Dates, Maps, class instances: JSON would turn them into something else.
    refuse(path, `${proto?.constructor?.name ?? 'object'} is not a plain object`);
  }
  if (Object.getOwnPropertySymbols(value).length > 0) refuse(path, 'has symbol keys');
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  let chars = 2;
  for (const key of Object.keys(record).sort()) {
    const part = `${JSON.stringify(key)}:${write(record[key], `${path}.${key}`, depth + 1, state)}`;
    parts.push(part);
    chars += part.length + 1;
    if (chars > state.maxChars) tooLarge(state, chars);
  }
  return `{${parts.join(',')}}`;
}

function refuse(path: string, message: string): never {
  throw new ValidationError(path, message);
}

/** The text is surely over the limit: `chars` of it were written before that was clear. */
function tooLarge(state: State, chars: number): never {
  throw new PayloadTooLargeError(state.field, chars, state.maxChars, state.what, true);
}
