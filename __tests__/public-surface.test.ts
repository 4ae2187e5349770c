/**
 * The public surface has two homes (docs/design.md#shape): the public types, in lib/types/ (a leaf
 * folder the layers import), and the facade, lib/surfaces/facade/ (createScheduler and the
 * scheduler it makes, and the package's other values). Each export of lib/index.ts is followed
 * through its aliases to its declaration with the TypeScript compiler's checker, and an export
 * declared anywhere else fails: a type or value that lives in a layer would tie the package's
 * surface to that layer's insides. The walk is first run on a fixture with one export of each
 * kind declared outside, so the check fails when it should.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';

const LIB = path.join(__dirname, '..', 'lib');
/** Where a public declaration may live, relative to the package's source root. */
const HOMES = ['types/', 'surfaces/facade/'];

/** Each export of `index` as `name: file` (relative to `root`), its declarations followed through every alias. */
function declarations(index: string, root: string): string[] {
  const program = ts.createProgram([index], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(index);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`no module at ${index}`);
  return checker.getExportsOfModule(module).flatMap((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const files = new Set((target.declarations ?? []).map((d) => path.relative(root, d.getSourceFile().fileName).split(path.sep).join('/')));
    if (files.size === 0) throw new Error(`export ${symbol.name} has no declaration`);
    return [...files].map((file) => `${symbol.name}: ${file}`);
  });
}

/** The exports whose declarations live outside `homes`. */
function strays(index: string, root: string, homes: string[]): string[] {
  return declarations(index, root).filter((entry) => !homes.some((home) => entry.split(': ')[1].startsWith(home)));
}

/** A small package: `index.ts` exports from its homes, and once each of a type and a value declared in a layer. */
const FIXTURE: Record<string, string> = {
  'index.ts': [
    "export { make } from './facade/make';",
    "export type { Shape } from './types/shape';",
    "export type { Inner } from './layer/inner';",
    "export { helper } from './layer/inner';",
    "export type { Passed } from './facade/make';",
  ].join('\n'),
  'types/shape.ts': 'export interface Shape { size: number }',
  'facade/make.ts': ["import type { Shape } from '../types/shape';", "export type { Inner as Passed } from '../layer/inner';", 'export function make(): Shape { return { size: 1 }; }'].join(
    '\n',
  ),
  'layer/inner.ts': ['export interface Inner { x: number }', 'export function helper(): number { return 1; }'].join('\n'),
};

describe('the public surface', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'docket-surface-'));
    for (const [name, text] of Object.entries(FIXTURE)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds each export declared outside its homes in a fixture, a re-export through the facade included, and nothing else', () => {
    expect(strays(path.join(dir, 'index.ts'), dir, ['types/', 'facade/'])).toEqual(['Inner: layer/inner.ts', 'helper: layer/inner.ts', 'Passed: layer/inner.ts']);
  });

  it('follows every export of lib/index.ts to a declaration', () => {
    const all = declarations(path.join(LIB, 'index.ts'), LIB);
    expect(all.length).toBeGreaterThan(130);
    expect(all).toEqual(
      expect.arrayContaining(['createScheduler: surfaces/facade/scheduler.ts', 'Scheduler: types/scheduler.ts', 'ValidationError: types/errors.ts', 'Worker: types/work.ts']),
    );
  });

  it('declares every export of lib/index.ts in lib/types/ or in the facade', () => {
    expect(strays(path.join(LIB, 'index.ts'), LIB, HOMES)).toEqual([]);
  });
});
