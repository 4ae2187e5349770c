/**
 * The Lua scripts and their ops: each lua/<name>.lua has one op in lib/ops/<name>.ts, whose keys,
 * arguments and flags its header documents; nothing else lists the scripts, so a new operation is
 * those two files; and a server that lost its script cache is invisible to callers.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import ts from 'typescript';
import { createScheduler, OutOfMemoryError } from '../lib';
import { queueKeys, READY_LEVELS, SUFFIXES } from '../lib/domain/keys';
import { connect } from '../lib/redis/connection';
import { script } from '../lib/redis/op';
import { array, num, text } from '../lib/redis/reply';
import { docketLibrary, isModule } from '../lib/redis/library';
import { body, compile, inlined, LUA_DIR, Scripts } from '../lib/redis/scripts';
import { eventually, testUrl } from './support/harness';
import { opFiles, OPS, type AnyOp } from './support/ops';
import { startRedis, type ControlledRedis } from './support/redis-server';

function header(file: string) {
  const [shebang, ...rest] = file.split('\n');
  expect(shebang).toMatch(/^#!lua( flags=[\w-]+)?$/);
  const source = rest.join('\n');
  const match = /^--\[\[([\s\S]*?)\]\]/.exec(source);
  if (!match) throw new Error('no --[[ ... ]] header at the top');
  const text = match[1];
  // KEYS are named, not numbered: one list of suffixes, wrapped, up to the first ARGV or Returns.
  const listed = /^\s*KEYS \(as K\.<name>[^)]*\):([\s\S]*?)(?=^\s*(?:ARGV|Returns))/m.exec(text);
  const keys = listed ? listed[1].split(/[\s,]+/).filter(Boolean) : [];
  const args = [...text.matchAll(/^\s*ARGV\[(\d+)\]\s+(\w+)/gm)];
  const each = [...text.matchAll(/^\s*ARGV\[\+(\d+)\]\s+(\w+)/gm)];
  args.forEach((m, i) => expect(Number(m[1])).toBe(i + 1));
  each.forEach((m, i) => expect(Number(m[1])).toBe(i + 1));
  return {
    flags: /flags=([\w-]+)/.exec(shebang)?.[1] ?? '',
    keys,
    args: args.map((m) => m[2]),
    each: each.map((m) => m[2]),
    returns: /Returns:/.test(text),
    body: source.slice(match[0].length),
  };
}

/** The file an op runs: lua/<name>.lua, or its own. */
const luaFile = (op: AnyOp) => op.file ?? path.join(LUA_DIR, `${op.name}.lua`);

/** Checks `op` against its Lua file's header: what every op, docket's or a test's, must pass. */
function expectHeaderMatches(op: AnyOp): void {
  const h = header(readFileSync(luaFile(op), 'utf8'));
  expect(h.flags).toBe(op.flags);
  expect(h.keys).toEqual(op.keys);
  expect(h.args).toEqual(op.args);
  expect(h.each).toEqual(op.each ?? []);
  expect(h.returns).toBe(true);
  // Keys are used by name only: K.<suffix>, which compile() builds from the op.
  expect(h.body).not.toMatch(/KEYS\[/);
  if (!op.each) {
    const argv = [...h.body.matchAll(/ARGV\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(Math.max(0, ...argv)).toBeLessThanOrEqual(op.args.length);
  }
}

const NAMES = OPS.map((op) => op.name);
const BY_NAME = new Map(OPS.map((op) => [op.name, op]));
const opNamed = (name: string) => BY_NAME.get(name)!;

describe('Lua headers', () => {
  const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua'));

  it('has one lib/ops/<name>.ts per lua/<name>.lua and no other, each exporting one op of that name', () => {
    expect(OPS.length).toBeGreaterThan(20);
    for (const { file, ops } of opFiles()) expect({ file, ops: ops.map((op) => op.name) }).toEqual({ file, ops: [file] });
    expect(files.map((f) => f.replace(/\.lua$/, '')).sort()).toEqual([...NAMES].sort());
  });

  it.each(NAMES)('%s.lua documents exactly the KEYS and ARGV its op passes', (name) => {
    expectHeaderMatches(opNamed(name));
  });

  it.each(NAMES)('%s, with its includes, uses exactly the keys it is given', (name) => {
    const source = inlined(opNamed(name));
    expect(source).not.toMatch(/KEYS\[/);
    const used = new Set([...source.matchAll(/\bK\.(\w+)/g)].map((m) => m[1]));
    // A level's list is chosen by number: K['ready' .. level].
    if (/K\['ready' \.\./.test(source)) for (const k of READY_LEVELS) used.add(k);
    // No other way of reaching K: every use is K.<name> or K['ready' .. level].
    expect(source.replace(/\bK\.\w+/g, '').replace(/\bK\['ready' \.\. \w+\]/g, '')).not.toMatch(/\bK\b(?!\.<name>)/);
    const given = new Set<string>(opNamed(name).keys);
    expect([...used].filter((k) => !given.has(k))).toEqual([]);
    // Includes may bring functions a script never calls, so a given key need not be used; but
    // every given key is a real queue key.
    for (const k of given) expect(SUFFIXES).toContain(k);
  });

  it.each(NAMES)('%s compiles with K and A built from its op on one line', (name) => {
    const op = opNamed(name);
    const lines = compile(op).split('\n');
    // The line compile() adds, after the shebang, is the only place KEYS is read, and the only
    // place an argument is read by a fixed position: the code names them (K.tasks, A.token).
    const named = op.args.length > 0 ? ` local A = { ${op.args.map((a, i) => `${a} = ARGV[${i + 1}]`).join(', ')} }` : '';
    expect(lines[1].startsWith(`local K = { ${op.keys.map((k, i) => `${k} = KEYS[${i + 1}]`).join(', ')} }${named}`)).toBe(true);
    // Slots repeated per item are read through each.item(C, i) (lua/include/each.lua), which
    // hands them back in the op's order: the line gives C the ARGV table and the shape.
    if (op.each) expect(lines[1]).toContain(`, V = ARGV, named = ${op.args.length}, stride = ${op.each.length} } local ITEMS = each.count(C)`);
    const code = lines
      .slice(2)
      .join('\n')
      .replace(/--\[\[[\s\S]*?\]\]/g, '')
      .replace(/--.*$/gm, '');
    expect(code).not.toMatch(/KEYS\[/);
    expect(code.match(/ARGV/g) ?? []).toEqual([]);
  });
  it('keeps every Lua file, script or include, within 120 lines', () => {
    // Counted as `wc -l` does, header included: a file past this does more than one thing.
    const include = path.join(LUA_DIR, 'include');
    const all = [
      ...files.map((f) => path.join(LUA_DIR, f)),
      ...readdirSync(include)
        .filter((f) => f.endsWith('.lua'))
        .map((f) => path.join(include, f)),
    ];
    const long = all.map((file) => [path.relative(LUA_DIR, file), readFileSync(file, 'utf8').split('\n').length - 1] as const).filter(([, lines]) => lines > 120);
    expect(long).toEqual([]);
  });

  it('opens every include with a header naming it', () => {
    const include = path.join(LUA_DIR, 'include');
    for (const f of readdirSync(include).filter((name) => name.endsWith('.lua'))) {
      expect(readFileSync(path.join(include, f), 'utf8')).toMatch(new RegExp(`^--\\[\\[ ${f.replace(/\.lua$/, '')}: [\\s\\S]*?\\]\\]`));
    }
  });

  it('makes every include a module of the library, defined once at its top level', () => {
    const include = path.join(LUA_DIR, 'include');
    const names = readdirSync(include)
      .filter((f) => f.endsWith('.lua'))
      .map((f) => f.replace(/\.lua$/, ''));
    expect(names.filter((name) => !isModule(name))).toEqual([]);
  });

  it.each(NAMES)('%s defines no include function per call: its body holds only its own code', (name) => {
    // The function's body (what each call runs) after the line that names K and A: an include's
    // code there would be defined again on every call.
    const code = body(opNamed(name)).split('\n').slice(1).join('\n');
    expect(code).not.toMatch(/^\s*function \w+\.\w+\(/m);
    // The library defines each module once, before the first function that calls one.
    const library = docketLibrary().source;
    const modules = [...library.matchAll(/^local (\w+) = \{\}\ndo$/gm)];
    expect(modules.length).toBeGreaterThan(30);
    expect(new Set(modules.map((m) => m[1])).size).toBe(modules.length);
    expect(library.indexOf('redis.register_function')).toBeGreaterThan(modules[modules.length - 1].index);
  });

  it.each(NAMES)('%s.lua builds no key names (cluster and ACL safety)', (name) => {
    // With its includes: a key is only ever one of K's values, never a string made from one.
    const source = inlined(opNamed(name));
    expect(source).not.toMatch(/\bK\.\w+\s*\.\./);
    expect(source).not.toMatch(/\.\.\s*K\.\w/);
    expect(source).not.toMatch(/\.\.\s*K\[/);
  });
});

const DESIGN = path.join(__dirname, '..', 'docs', 'design.md');

/** The first sentence of a Lua file's header: what its script does. */
function summary(op: AnyOp): string {
  const head = /--\[\[ [\w-]+: ([\s\S]*?)(?=\n\s*KEYS|\]\])/.exec(readFileSync(luaFile(op), 'utf8'));
  if (!head) throw new Error(`${op.name}: no header summary`);
  const flat = head[1].replace(/\s+/g, ' ').trim();
  return (/^.*?\.(?=\s|$)/.exec(flat)?.[0] ?? flat).replace(/\|/g, '\\|');
}

/**
 * The table of operations in docs/design.md (#scripts), made from the ops and their Lua headers.
 * After adding or changing an op, write it into design.md with:
 *   DOCKET_WRITE_DOCS=1 npx jest __tests__/scripts.test.ts -t 'operations table'
 */
function opsTable(): string {
  const list = (names: readonly string[] | undefined) => (names ?? []).join(', ');
  const rows = [...OPS]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((op) => `| \`${op.name}\` | ${op.flags === '' ? 'none' : op.flags} | ${list(op.args)} | ${list(op.each)} | ${summary(op)} |`);
  return ['| Script | Flags | `ARGV` | `ARGV` per item | What it does |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

const TABLE_START = '<!-- ops table: generated from lib/ops by __tests__/scripts.test.ts -->';
const TABLE_END = '<!-- end of ops table -->';

describe('docs/design.md', () => {
  const design = () => readFileSync(DESIGN, 'utf8');

  it('has the operations table the ops make', () => {
    const doc = design();
    const from = doc.indexOf(TABLE_START);
    const to = doc.indexOf(TABLE_END);
    expect(from).toBeGreaterThan(0);
    expect(to).toBeGreaterThan(from);
    const made = `${TABLE_START}\n${opsTable()}\n${TABLE_END}`;
    if (process.env.DOCKET_WRITE_DOCS === '1') writeFileSync(DESIGN, doc.slice(0, from) + made + doc.slice(to + TABLE_END.length));
    else expect(doc.slice(from, to + TABLE_END.length)).toBe(made);
  });

  it('lists each script under the flags its op has', () => {
    const rows = [...design().matchAll(/^\| `#!lua(?: flags=([\w-]+))?` \| `'[\w-]*'` \| ([^|]*) \|/gm)];
    expect(rows.map((m) => m[1] ?? '')).toEqual(['', 'allow-oom', 'no-writes']);
    for (const [, flags = '', scripts] of rows) {
      const listed = scripts.split(/[^\w-]+/).filter((w) => BY_NAME.has(w));
      expect({ flags, scripts: listed.sort() }).toEqual({ flags, scripts: NAMES.filter((n) => opNamed(n).flags === flags).sort() });
    }
  });

  it('describes every key the scripts name', () => {
    const table = design();
    const rows = new Set([...table.matchAll(/^\| `(\w+)`/gm)].map((m) => m[1]));
    const missing = SUFFIXES.filter((k) => !rows.has(k) && !(READY_LEVELS as readonly string[]).includes(k));
    expect(missing).toEqual([]);
    expect(table).toMatch(/^\| `ready1` … `ready9` \|/m);
  });
});

/**
 * The tables in a module's `source` that list several ops, which is what a registry of scripts
 * is: an object literal with three or more properties named after ops whose values are script
 * specs (`{ flags, keys, ... }`) or ops imported from lib/ops, or an array literal of three or
 * more imported ops. Each is given as its line and first characters.
 */
function registries(source: string, names: ReadonlySet<string>): string[] {
  const file = ts.createSourceFile('module.ts', source, ts.ScriptTarget.Latest, true);
  const imported = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!/(^|\/)ops\/[\w-]+$/.test(statement.moduleSpecifier.text)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) for (const b of bindings.elements) imported.add(b.name.text);
  }
  const isOpValue = (node: ts.Node): boolean =>
    (ts.isIdentifier(node) && imported.has(node.text)) ||
    (ts.isObjectLiteralExpression(node) && node.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && ['flags', 'keys'].includes(p.name.text)));
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    let listed = 0;
    if (ts.isObjectLiteralExpression(node)) {
      for (const p of node.properties) {
        if (ts.isShorthandPropertyAssignment(p) && imported.has(p.name.text)) listed++;
        else if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && names.has(p.name.text) && isOpValue(p.initializer)) listed++;
      }
    } else if (ts.isArrayLiteralExpression(node)) {
      listed = node.elements.filter(isOpValue).length;
    }
    if (listed >= 3) found.push(`line ${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 60)}`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function libFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return libFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('a new operation is one Lua file plus one TypeScript file', () => {
  const names = new Set(NAMES);

  it('finds a registry of scripts, as the one lib/redis/scripts.ts used to hold, and nothing else', () => {
    const ops = "import { put } from '../ops/put';\nimport { claim } from '../ops/claim';\nimport { get } from '../ops/get';\n";
    expect(registries("const SCRIPTS = { put: { flags: '', keys: [] }, claim: { flags: '', keys: [] }, get: { flags: '', keys: [] } };", names)).toHaveLength(1);
    expect(registries(`${ops}export const CODECS = { put, claim, get };`, names)).toHaveLength(1);
    expect(registries(`${ops}export const CODECS = { put: put, 'claim': claim, get };`, names)).toHaveLength(1);
    expect(registries(`${ops}const ALL = [put, claim, get];`, names)).toHaveLength(1);
    // Callers name the ops they run, and routes or commands may share their names.
    expect(registries(`${ops}run(put); run(claim); run(get);`, names)).toEqual([]);
    expect(registries('const routes = { get: handler, list: handler, stats: { limit: 1 } };', names)).toEqual([]);
  });

  it('has no module in lib/ but the ops themselves that lists the ops', () => {
    const lib = path.join(__dirname, '..', 'lib');
    const found = libFiles(lib)
      .filter((file) => path.dirname(file) !== path.join(lib, 'ops'))
      .flatMap((file) => registries(readFileSync(file, 'utf8'), names).map((where) => `${path.relative(lib, file)} ${where}`));
    expect(found).toEqual([]);
  });

  describe('runs an op the test defines, with a Lua file of its own', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'docket-probe-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('through Scripts.run, against the test redis-server', async () => {
      const file = path.join(dir, 'probe.lua');
      writeFileSync(
        file,
        [
          '#!lua flags=no-writes',
          '--[[ probe: echo what it is given, to show that an op needs nothing but its two files.',
          '  KEYS (as K.<name>; each described in docs/design.md#keys): tasks',
          '  ARGV[1] greeting  any string',
          '  ARGV[+1] word     once per item',
          "  Returns: { greeting, the tasks key's name, the items, the words joined by ' ', now (ms) } ]]",
          '-- include: clock, each',
          'local words = {}',
          'for i = 1, ITEMS do words[i] = each.item(C, i) end',
          "return { A.greeting, K.tasks, ITEMS, table.concat(words, ' '), clock.now(C) }",
          '',
        ].join('\n'),
      );
      const probe = script<{ greeting: string; words: readonly string[] }, { greeting: string; key: string; items: number; words: string; now: number }>({
        name: 'probe',
        flags: 'no-writes',
        keys: ['tasks'],
        args: ['greeting'],
        each: ['word'],
        file,
        encode: (i) => [i.greeting, ...i.words],
        decode(reply) {
          const r = array('probe', reply, 5);
          return {
            greeting: text('probe', r[0], 'greeting'),
            key: text('probe', r[1], 'key'),
            items: num('probe', r[2], 'items'),
            words: text('probe', r[3], 'words'),
            now: num('probe', r[4], 'now'),
          };
        },
      });
      // The same checks as docket's own ops.
      expectHeaderMatches(probe);
      const conn = await connect({ url: testUrl() });
      try {
        const scripts = new Scripts(conn, 5000);
        const keys = queueKeys('probe-test', 'q');
        const before = Date.now();
        for (const words of [['one', 'two'], ['three']]) {
          const reply = await scripts.run(probe, keys, { greeting: 'hello', words });
          expect(reply).toEqual({ greeting: 'hello', key: keys.tasks, items: words.length, words: words.join(' '), now: expect.any(Number) });
          expect(Math.abs(reply.now - before)).toBeLessThan(60_000);
        }
      } finally {
        await conn.close();
      }
    });
  });
});

describe('a full Redis (maxmemory, noeviction)', () => {
  it('refuses put up front with a typed error and writes nothing, while workers still drain', async () => {
    const server = await startRedis(['--maxmemory', '4mb', '--maxmemory-policy', 'noeviction']);
    const s = await createScheduler({ url: server.url, warnings: { aof: false } }); // no AOF, on purpose
    const raw = createClient({ url: server.url });
    await raw.connect();
    try {
      // No done history (on by default, it would keep the acked tasks, bounded, rather than free them).
      await s.keep({ done: { count: 0 } });
      const pad = 'x'.repeat(4000);
      let n = 0;
      let refusal: unknown;
      while (!refusal) {
        await s.putMany(Array.from({ length: 50 }, () => ({ data: { n: n++, pad } }))).catch((err: unknown) => (refusal = err));
      }
      expect(refusal).toBeInstanceOf(OutOfMemoryError);
      expect((refusal as OutOfMemoryError).code).toBe('ERR_OUT_OF_MEMORY');
      // The refused chunk wrote none of its 50 tasks: every stored task is an accepted chunk's,
      // and each is whole (its record, a newline, its payload).
      const stored = await raw.hVals('docket:{default}:tasks');
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.length).toBe(n - 50);
      expect(stored.filter((field) => !/^(\{.*\}|\d+)\n\{"n":\d+,"pad":"x+"\}$/.test(field))).toEqual([]);
      // A worker's scheduler starts on the full Redis (FUNCTION LOAD is refused there, the library
      // is loaded already), and claim and ack are allow-oom: draining works and frees memory,
      // then puts work again.
      const drainer = await createScheduler({ url: server.url, warnings: { aof: false } });
      for (let i = 0; i < 100; i++) await drainer.ack((await drainer.claim())!);
      await drainer.close();
      await expect(s.put('fits again')).resolves.toMatchObject({ added: true });
    } finally {
      await s.close();
      await raw.quit();
      await server.stop();
    }
  });
});

// guarantees.md: "Every operation is a function call of docket's library; a node that lost it loads it again, and no caller sees "Function not found".
describe('a server that lost its functions', () => {
  let server: ControlledRedis;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('loads the library again after FUNCTION FLUSH, or a restart without persistence, and the caller never sees "Function not found"', async () => {
    const s = await createScheduler({ url: server.url, warnings: { aof: false } }); // no AOF, on purpose
    const raw = createClient({ url: server.url });
    raw.on('error', () => {});
    await raw.connect();
    try {
      await s.put('before');
      await raw.sendCommand(['FUNCTION', 'FLUSH']);
      const loadsBefore = await calls(raw, 'function\\|load');
      await expect(s.put('after')).resolves.toMatchObject({ added: true });
      const task = await s.claim();
      await raw.sendCommand(['FUNCTION', 'FLUSH']);
      await expect(s.ack(task!)).resolves.toBe(true);
      await expect(s.stats()).resolves.toMatchObject({ ready: 1 });
      // Each call after a flush loaded the library once more: put, then ack.
      expect((await calls(raw, 'function\\|load')) - loadsBefore).toBe(2);
      // A restart of a server without persistence: no library, no data; the scheduler goes on.
      await server.kill();
      await server.restart();
      await raw.connect().catch(() => {});
      await eventually(async () => (await s.put('after the restart').catch(() => null)) !== null, 10_000);
      const again = (await s.claim())!;
      expect(again.data).toBe('after the restart');
      await expect(s.ack(again)).resolves.toBe(true);
      expect(await raw.sendCommand(['FUNCTION', 'LIST'])).toHaveLength(1);
      // Nothing was ever run as a script.
      expect(await calls(raw, 'evalsha')).toBe(0);
      expect(await calls(raw, 'eval')).toBe(0);
    } finally {
      await s.close();
      await raw.quit().catch(() => {});
    }
  });
});

async function calls(raw: ReturnType<typeof createClient>, command: string): Promise<number> {
  const info = await raw.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}
