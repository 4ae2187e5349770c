/**
 * Task identity. A task's hash (the `id` of the Lua scripts) is a 128-bit xxhash of its identity:
 * the canonical payload, or the caller's `key`. xxhash-wasm has no 128-bit variant, so two
 * differently seeded 64-bit hashes are joined. A hash is not proof of sameness: put.lua compares the identity itself on a match and
 * stores a colliding task apart, so a collision never drops a task.
 */
import xxhash from 'xxhash-wasm';
import { HashFunctionError } from '../types/errors';
import type { HashFunction } from '../types/scheduler-options';

const SEED_A = 0x646f636b6574n; // 'docket' in ASCII; any fixed seed would do
const SEED_B = 0x9e3779b97f4a7c15n; // the golden-ratio constant: far from SEED_A in every bit

/** The default 128-bit hash, as 32 hex characters. xxhash-wasm starts asynchronously. */
export async function createHash128(): Promise<HashFunction> {
  const { h64ToString } = await xxhash();
  return (identity) => h64ToString(identity, SEED_A).padStart(16, '0') + h64ToString(identity, SEED_B).padStart(16, '0');
}

/**
 * A caller's hash function (SchedulerOptions.hash), made to fail as docket's errors do: what it
 * throws, or a return that is not a non-empty string, is a HashFunctionError.
 */
export function guardHash(fn: HashFunction): HashFunction {
  return (identity) => {
    let id: unknown;
    try {
      id = fn(identity);
    } catch (err) {
      throw new HashFunctionError('threw', err);
    }
    if (typeof id !== 'string' || id === '') throw new HashFunctionError(`returned ${typeof id === 'string' ? 'an empty string' : typeof id}`);
    return id;
  };
}

/**
 * The identity string of a task: its canonical payload, or its de-dup key, and its name when it
 * has one. The `#key:` and `#name:` marks keep them apart (canonical JSON never starts with `#`,
 * and a name holds no NUL). An unnamed task's identity, so its hash, is what it always was.
 */
export function identityOf(canonical: string, key: string | undefined, name?: string): string {
  const rest = key === undefined ? canonical : `#key:${key}`;
  return name === undefined ? rest : `#name:${name}\u0000${rest}`;
}
