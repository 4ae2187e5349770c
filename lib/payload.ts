/**
 * Canonical JSON: the form in which a payload is hashed, stored and compared. Object keys are
 * sorted at every depth, so `{a:1,b:2}` and `{b:2,a:1}` are the same task; array order matters.
 * Anything JSON cannot carry faithfully is refused, naming where it sits, instead of being
 * silently changed (JSON.stringify drops undefined and functions, and turns NaN into null).
 */
import { ValidationError } from './errors';

/** Any value that survives a JSON round trip unchanged. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Serialises `value` canonically, or throws a ValidationError naming the offending path. */
export function canonicalJson(value: unknown, field = 'data'): string {
  const fast = quick(value, 0);
  // The careful writer runs only to name what is wrong (or for very deep values).
  return fast ?? write(value, field, new Set());
}

/** Nesting beyond which quick() hands over to write(), which detects cycles. */
const QUICK_DEPTH = 64;

/**
 * The hot path: the same output as write() for every valid value, without building a path for
 * each field or tracking cycles (depth is bounded instead). Returns undefined for anything that
 * write() would refuse, and for values nested deeper than QUICK_DEPTH.
 */
function quick(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'object': {
      if (value === null) return 'null';
      if (depth >= QUICK_DEPTH) return undefined;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) return undefined;
          const part = quick(value[i], depth + 1);
          if (part === undefined) return undefined;
          out += i === 0 ? part : `,${part}`;
        }
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(value).length > 0) return undefined;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const part = quick(record[keys[i]], depth + 1);
        if (part === undefined) return undefined;
        out += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${part}`;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}

function write(value: unknown, path: string, seen: Set<object>): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) refuse(path, `${value} is not a finite number`);
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      if (seen.has(value)) refuse(path, 'is a cycle back to an enclosing value');
      seen.add(value);
      try {
        return Array.isArray(value) ? writeArray(value, path, seen) : writeObject(value, path, seen);
      } finally {
        seen.delete(value);
      }
    default:
      // undefined, bigint, function, symbol
      return refuse(path, `${typeof value} cannot be carried by JSON`);
  }
}

function writeArray(value: unknown[], path: string, seen: Set<object>): string {
  const parts: string[] = [];
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) refuse(`${path}[${i}]`, 'is a hole in a sparse array');
    parts.push(write(value[i], `${path}[${i}]`, seen));
  }
  return `[${parts.join(',')}]`;
}

function writeObject(value: object, path: string, seen: Set<object>): string {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    // Dates, Maps, class instances: JSON would turn them into something else.
    refuse(path, `${proto?.constructor?.name ?? 'object'} is not a plain object`);
  }
  if (Object.getOwnPropertySymbols(value).length > 0) refuse(path, 'has symbol keys');
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const parts = keys.map((key) => `${JSON.stringify(key)}:${write(record[key], `${path}.${key}`, seen)}`);
  return `{${parts.join(',')}}`;
}

function refuse(path: string, message: string): never {
  throw new ValidationError(path, message);
}
