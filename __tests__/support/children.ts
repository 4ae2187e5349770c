/**
 * Child processes of the tests (fault-scenario workers, signal and freeze children) run compiled
 * JavaScript, not ts-node. ts-node transpiles every lib module again at each start: 2.3 s for one
 * child and 8 s for four at once on this 2-core machine, against 0.6 s and 1.7 s compiled. A
 * scenario that kills and respawns workers would then measure start-up, not recovery (T1 saw its
 * whole crew restarting for 5–7 s after four close kills).
 *
 * Jest's global setup transpiles lib/ and the tests' support code once per run (about 2 s) into
 * a throwaway directory (transpile only: `npm test` type-checks the sources first), with links
 * to lua/ (scripts are read from `<dir>/lua`) and node_modules/. childModule() maps a .ts path to its compiled twin;
 * outside a jest run (no directory set) it falls back to ts-node.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
const ENV = 'DOCKET_CHILDREN_DIR';
/** What the children load: lib and the tests' support code (no test files). */
const SOURCES = ['lib', '__tests__/support', '__tests__/faults/support'];

/** How to fork `tsFile`: the module to run and the node options it needs. */
export function childModule(tsFile: string): { module: string; execArgv: string[] } {
  const dir = process.env[ENV];
  if (!dir) return { module: tsFile, execArgv: ['-r', 'ts-node/register/transpile-only'] };
  const compiled = path.join(dir, path.relative(ROOT, tsFile)).replace(/\.ts$/, '.js');
  return { module: compiled, execArgv: [] };
}

/** A test child forked from __tests__/support/<name>.ts with `args`; `out()` is what it printed so far. */
export function forkChild(name: string, args: string[]): { child: ChildProcess; out: () => string } {
  const compiled = childModule(path.join(ROOT, '__tests__', 'support', `${name}.ts`));
  const child = fork(compiled.module, args, { execArgv: compiled.execArgv, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { child, out: () => out };
}

/** Transpiles the sources into a new directory, sets it for forked test workers, and returns it. */
export function compileChildren(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'docket-children-'));
  const { compilerOptions } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile).config as { compilerOptions: object };
  const { options } = ts.convertCompilerOptionsFromJson(compilerOptions, ROOT);
  const settings = { ...options, noEmit: false, sourceMap: false, declaration: false };
  for (const source of SOURCES) {
    for (const file of tsFiles(path.join(ROOT, source))) {
      const out = path.join(dir, path.relative(ROOT, file)).replace(/\.ts$/, '.js');
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: settings, fileName: file }).outputText);
    }
  }
  symlinkSync(path.join(ROOT, 'lua'), path.join(dir, 'lua'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  // The library's name carries docket's version (lib/redis/library.ts), read from package.json.
  symlinkSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  process.env[ENV] = dir;
  return dir;
}

export function removeChildren(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

function* tsFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* tsFiles(full);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield full;
  }
}
