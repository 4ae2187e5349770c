/**
 * The ops, found as docket finds none: by listing lib/ops/*.ts and loading each file, since
 * nothing in lib/ lists them (a new op is its Lua file and its lib/ops file, nothing else). The
 * tests that check every op (scripts.test.ts, codecs.test.ts) read them from here.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Op } from '../../lib/redis/op';

/** Any op, whatever its input and output. */
export type AnyOp = Op<never, unknown>;

export const OPS_DIR = path.join(__dirname, '..', '..', 'lib', 'ops');

/** Whether `value` is an op: script() made it (a name, keys, args, a codec). */
export function isOp(value: unknown): value is AnyOp {
  const v = value as Partial<AnyOp> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.name === 'string' && Array.isArray(v.keys) && Array.isArray(v.args) && typeof v.encode === 'function' && typeof v.decode === 'function'
  );
}

/** Each lib/ops/*.ts file (its name without `.ts`) and the ops it exports. */
export function opFiles(): Array<{ file: string; ops: AnyOp[] }> {
  return readdirSync(OPS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => {
      // Loaded by its path, as the listing found it: the point is that no import names them all.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const loaded = require(path.join(OPS_DIR, f)) as Record<string, unknown>;
      return { file: f.replace(/\.ts$/, ''), ops: Object.values(loaded).filter(isOp) };
    });
}

/** Every op, in file order. */
export const OPS: readonly AnyOp[] = opFiles().flatMap((f) => f.ops);
