/**
 * Comments that hold (issue 43): what a header or comment says of another file can be checked,
 * so it is. A path a comment names (docs/…, lib/…, lua/…, __tests__/…, bench/…, examples/…)
 * exists, and so does a file a comment in lib/ or lua/ names bare (`alarm.ts`); claim's reply codec reads as many entries per leased task as claim.lua's Returns names.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { LEASED_FIELDS } from '../lib/ops/claim';

const ROOT = path.join(__dirname, '..');

/** Every file under `dir` (relative to the root) whose name ends with one of `exts`. */
function walk(dir: string, exts: string[]): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(rel, exts);
    return exts.some((e) => entry.name.endsWith(e)) ? [rel] : [];
  });
}

/** The repository paths `source` names: a top-level folder of this repository, then a file. */
export function namedPaths(source: string): string[] {
  const found = source.match(/(?<![\w./-])(?:docs|lib|lua|__tests__|bench|examples)\/[\w./-]+\.(?:md|ts|lua|json)/g) ?? [];
  return found.map((p) => p.replace(/\.+$/, ''));
}

/** The file names `source` mentions bare (`alarm.ts`, `claim.lua`), without a folder. */
export function bareNames(source: string): string[] {
  return [...source.matchAll(/(?<![\w./-])([\w-]+\.(?:ts|lua))(?!\w)/g)].map((m) => m[1]);
}

/** Paths named on purpose although they do not exist: a test's own fixtures. */
const FIXTURES = new Set(['docs/guide/canary.md', 'lib/no-such-module.ts', 'lib/x.ts']);

describe('comments that hold', () => {
  it('finds a path that does not exist, and passes one that does', () => {
    const missing = namedPaths('// see lib/no-such-module.ts and docs/api.md.').filter((p) => !existsSync(path.join(ROOT, p)));
    expect(missing).toEqual(['lib/no-such-module.ts']);
  });

  it('names only files that exist', () => {
    const files = [...walk('lib', ['.ts']), ...walk('lua', ['.lua']), ...walk('__tests__', ['.ts']), ...walk('bench', ['.ts'])];
    expect(files.length).toBeGreaterThan(100);
    const broken = files.flatMap((file) =>
      namedPaths(readFileSync(path.join(ROOT, file), 'utf8'))
        .filter((p) => !FIXTURES.has(p) && !existsSync(path.join(ROOT, p)))
        .map((p) => `${file} names ${p}, which does not exist`),
    );
    expect(broken).toEqual([]);
  });

  it('names by their bare name only files that exist somewhere in the repository', () => {
    expect(bareNames('// its options (work-options.ts), its sleep (alarm.ts); not lib/x.ts')).toEqual(['work-options.ts', 'alarm.ts']);
    const every = new Set(['lib', 'lua', '__tests__', 'bench', 'examples'].flatMap((dir) => walk(dir, ['.ts', '.lua', '.md', '.json'])).map((file) => path.basename(file)));
    const broken = [...walk('lib', ['.ts']), ...walk('lua', ['.lua'])].flatMap((file) =>
      bareNames(readFileSync(path.join(ROOT, file), 'utf8'))
        .filter((name) => !every.has(name))
        .map((name) => `${file} names ${name}, which no file is called`),
    );
    expect(broken).toEqual([]);
  });

  it("reads as many entries per leased task as claim.lua's Returns names", () => {
    const header = readFileSync(path.join(ROOT, 'lua', 'claim.lua'), 'utf8');
    const perTask = /then (id, payload,[\s\S]*?) for each leased task/.exec(header)?.[1];
    expect(perTask).toBeDefined();
    expect(perTask!.split(',').length).toBe(LEASED_FIELDS);
  });
});
