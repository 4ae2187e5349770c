/**
 * The import graph of lib/: no module imports itself back through others, type-only imports and
 * `export ... from` included (a type-only cycle still ties the modules' meaning together, and one
 * `import type` turned into a value import makes it a load-order bug). Read with the TypeScript
 * compiler's own scanner, without Redis.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const LIB = path.join(__dirname, '..', 'lib');

type Graph = Map<string, string[]>;

function libFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return libFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The lib file a relative specifier names (`./x` is x.ts or x/index.ts), or null for a package or a non-TS file. */
function resolve(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((file) => existsSync(file)) ?? null;
}

/** Each lib file (relative to lib/, without `.ts`) and the lib files it imports, in source order. */
function importGraph(): Graph {
  const graph: Graph = new Map();
  const name = (file: string) => path.relative(LIB, file).replace(/\.ts$/, '').split(path.sep).join('/');
  for (const file of libFiles(LIB).sort()) {
    // preProcessFile reports `import`, `import type`, `export ... from`, `require()` and `import()`.
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles.map((ref) => resolve(file, ref.fileName)).filter((target): target is string => target !== null);
    graph.set(name(file), [...new Set(targets.map(name))]);
  }
  return graph;
}

/** Every cycle a depth-first walk meets (one per back edge), each as a path that ends where it starts. */
function cyclesOf(graph: Graph): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (node: string) => {
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const at = stack.indexOf(next);
      if (at >= 0) cycles.push([...stack.slice(at), next]);
      else if (!done.has(next)) visit(next);
    }
    stack.pop();
    done.add(node);
  };
  for (const node of graph.keys()) if (!done.has(node)) visit(node);
  return cycles;
}

describe('the import graph of lib/', () => {
  const graph = importGraph();

  it('has every lib module, with the imports each one makes', () => {
    expect(graph.size).toBe(libFiles(LIB).length);
    expect(graph.size).toBeGreaterThan(40);
    // A value import, an `import type`, `export ... from`, and imports across folders.
    expect(graph.get('surfaces/facade/scheduler')).toContain('features/shards');
    expect(graph.get('features/shards')).toContain('redis/context');
    expect(graph.get('index')).toEqual(expect.arrayContaining(['surfaces/facade/scheduler', 'types/errors', 'types/scheduler']));
    expect(graph.get('types/scheduler')).toEqual(expect.arrayContaining(['types/put', 'types/work']));
    expect(graph.get('surfaces/facade/dashboard')).toContain('surfaces/dashboard/index');
    expect(graph.get('cli')).toContain('surfaces/cli/main');
    expect(graph.get('surfaces/dashboard/index')?.length).toBeGreaterThan(0);
    const withImports = [...graph].filter(([, targets]) => targets.length > 0).map(([file]) => file);
    expect(withImports.length).toBeGreaterThan(graph.size / 2);
  });

  it('finds a cycle of any length, and none in a tree', () => {
    expect(cyclesOf(new Map([['a', ['a']]]))).toEqual([['a', 'a']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a', 'd']],
          ['d', []],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no import cycles', () => {
    expect(cyclesOf(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('imports only down the layers (docs/design.md#shape)', () => {
    expect([...graph.keys()].filter((file) => !(layerOf(file) in LAYERS))).toEqual([]);
    expect(upward(new Map([['domain/a', ['redis/b', 'domain/c']]]))).toEqual(['domain/a → redis/b']);
    expect(upward(new Map([['surfaces/a', ['life/b', 'ops/c', 'domain/d']]]))).toEqual([]);
    expect(upward(new Map([['types/a', ['types/b', 'domain/c']]]))).toEqual(['types/a → domain/c']);
    expect(
      upward(
        new Map([
          ['domain/a', ['types/b']],
          ['ops/c', ['types/d']],
          ['surfaces/e', ['types/f']],
          ['index', ['types/g']],
        ]),
      ),
    ).toEqual([]);
    expect(upward(graph)).toEqual([]);
  });

  it('keeps lib/types/ a leaf: its modules import only each other', () => {
    const types = [...graph].filter(([file]) => layerOf(file) === 'types');
    expect(types.length).toBeGreaterThan(10);
    expect(types.flatMap(([from, targets]) => targets.filter((to) => layerOf(to) !== 'types').map((to) => `${from} → ${to}`))).toEqual([]);
  });
});

/**
 * lib/'s folders by layer, lowest first: a module imports its own layer and those below. The
 * public types (types/) are the leaf every layer may import, and they import nothing of the
 * layers; the operations layer is the transport (redis/) and the operations it runs (ops/); a
 * task's life and the features built into it (life/, features/) call each other; the surfaces use
 * them all; the package's entry points (lib/*.ts) sit on top.
 */
const LAYERS: Record<string, number> = { types: -1, domain: 0, redis: 1, ops: 1, life: 2, features: 2, surfaces: 3, '.': 4 };

function layerOf(file: string): string {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : '.';
}

/** Each import that points to a higher layer, as `from → to`. */
function upward(graph: Graph): string[] {
  return [...graph].flatMap(([from, targets]) => targets.filter((to) => LAYERS[layerOf(to)] > LAYERS[layerOf(from)]).map((to) => `${from} → ${to}`));
}
