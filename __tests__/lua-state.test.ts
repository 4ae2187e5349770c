/**
 * Lua files without shared state (issue 42; docs/design.md, Includes). Two checks:
 * - A variable an include declares at its top level is written only by that include's own
 *   functions: no other Lua file assigns it (`name =`, `a, name =`) or writes into it (`name[k] =`,
 *   `name.f =`, `table.insert(name, ...)`), unless it declares a local of that name itself in scope.
 * - The library's modules take what they use: a module reads no name it does not declare (a free
 *   host local), keeps no state in a top-level local, and calls only modules its include lines
 *   name; no file declares a local named as a module; a script reads only what its function's first
 *   line makes, and defines no function (it would be made on every call).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { includesOf as namedIncludes } from '../lib/redis/library';
import { LUA_DIR } from '../lib/redis/scripts';

const INCLUDES = path.join(LUA_DIR, 'include');

/** A Lua source as tokens: comments dropped, each string literal one '' token. */
function tokens(source: string): string[] {
  const text = source
    .replace(/--\[(=*)\[[\s\S]*?\]\1\]/g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/\[(=*)\[[\s\S]*?\]\1\]|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, " '' ");
  return text.match(/''|[A-Za-z_]\w*|\d[\w.]*|\.\.\.?|[=~<>]=|\S/g) ?? [];
}

interface Write {
  name: string;
  at: number;
}

/** Walks a file's blocks: the locals it declares at its top level, and writes to names it has not declared. */
function scan(source: string): { top: string[]; writes: Write[] } {
  const t = tokens(source);
  const scopes: Set<string>[] = [new Set()];
  const writes: Write[] = [];
  const declared = (name: string) => scopes.some((s) => s.has(name));
  const write = (name: string, at: number) => {
    if (!declared(name)) writes.push({ name, at });
  };
  let forVars: string[] | null = null;
  let groups = 0;
  const names = (from: number, stop: (tok: string) => boolean) => {
    const out: string[] = [];
    for (let i = from; i < t.length && !stop(t[i]); i++) if (/^[A-Za-z_]\w*$/.test(t[i])) out.push(t[i]);
    return out;
  };
  for (let i = 0; i < t.length; i++) {
    const tok = t[i];
    if (tok === '(' || tok === '[' || tok === '{') groups++;
    else if (tok === ')' || tok === ']' || tok === '}') groups--;
    else if (tok === 'local' && t[i + 1] !== 'function') {
      for (let k = i + 1; /^[A-Za-z_]\w*$/.test(t[k] ?? ''); k += 2) {
        scopes[scopes.length - 1].add(t[k]);
        if (t[k + 1] !== ',') break;
      }
    } else if (tok === 'function') {
      if (t[i - 1] === 'local') scopes[scopes.length - 1].add(t[i + 1]);
      const open = t.indexOf('(', i);
      scopes.push(new Set(names(open + 1, (x) => x === ')')));
    } else if (tok === 'for') {
      forVars = names(i + 1, (x) => x === '=' || x === 'in');
    } else if (tok === 'do') {
      scopes.push(new Set(forVars ?? []));
      forVars = null;
    } else if (tok === 'then' || tok === 'repeat') scopes.push(new Set());
    else if (tok === 'else') scopes[scopes.length - 1] = new Set();
    else if (tok === 'elseif' || tok === 'end' || tok === 'until') {
      if (scopes.length === 1) throw new Error(`'${tok}' closes no block`);
      scopes.pop();
    } else if (tok === 'table' && t[i + 1] === '.' && /^(insert|remove)$/.test(t[i + 2]) && t[i + 3] === '(') {
      write(t[i + 4], i);
    } else if (tok === '=' && groups === 0) {
      // The targets before this `=`: base names, each with any `.f` / `[k]` suffixes, comma-separated.
      const targets: string[] = [];
      let j = i - 1;
      for (;;) {
        while (t[j] === ']' || t[j - 1] === '.') {
          if (t[j] === ']') {
            for (let depth = 0; j >= 0; j--) {
              if (t[j] === ']') depth++;
              else if (t[j] === '[' && --depth === 0) break;
            }
            j--;
          } else j -= 2;
        }
        if (!/^[A-Za-z_]\w*$/.test(t[j] ?? '') || t[j - 1] === ':') break;
        targets.push(t[j]);
        if (t[j - 1] !== ',') break;
        j -= 2;
      }
      if (t[j - 1] !== 'local' && t[j - 1] !== 'for') targets.forEach((n) => write(n, i));
    }
  }
  // Blocks that do not balance mean the walk misread the file: fail rather than check nothing.
  if (scopes.length !== 1) throw new Error(`unbalanced blocks (${scopes.length - 1} open at the end)`);
  return { top: [...scopes[0]], writes };
}

function luaFiles(): { file: string; source: string }[] {
  const read = (dir: string, label: string) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.lua'))
      .map((f) => ({ file: `${label}${f}`, source: readFileSync(path.join(dir, f), 'utf8') }));
  return [...read(LUA_DIR, ''), ...read(INCLUDES, 'include/')];
}

describe('Lua includes keep their state to themselves', () => {
  it('finds a cross-file write, and not a shadowing local, a field or a comment', () => {
    const { top } = scan('local pending, known = {}, nil\nlocal function f() end\n');
    expect(top.sort()).toEqual(['f', 'known', 'pending']);
    const other = scan(
      [
        '-- known = true',
        'a, known = 1, 2',
        'pending[id] = 1',
        'x.pending = 2',
        'local t = { pending = 3 }',
        'table.insert(pending, 4)',
        'local function g(pending) pending[1] = 5 end',
        'for _, known in ipairs(t) do known = 6 end',
        'if a == known then b = 1 end',
      ].join('\n'),
    );
    // `x.pending = 2` writes into x (a global here), not into pending.
    expect(other.writes.map((w) => w.name)).toEqual(['known', 'a', 'pending', 'x', 'pending', 'b']);
  });

  it('no Lua file writes a variable an include declares at its top level', () => {
    const files = luaFiles();
    const owners = new Map<string, string[]>();
    for (const { file, source } of files.filter((f) => f.file.startsWith('include/'))) {
      for (const name of scan(source).top) owners.set(name, [...(owners.get(name) ?? []), file]);
    }
    const found: string[] = [];
    for (const { file, source } of files) {
      for (const { name } of scan(source).writes) {
        const owner = owners.get(name);
        if (owner) found.push(`${file} writes ${name} (declared in ${owner.join(', ')})`);
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });

  it('no include writes a variable it does not declare: a script local, or another include variable', () => {
    const found = luaFiles()
      .filter((f) => f.file.startsWith('include/'))
      .flatMap(({ file, source }) => scan(source).writes.map(({ name }) => `${file} writes ${name}`));
    expect([...new Set(found)]).toEqual([]);
  });
});

const KEYWORDS = new Set('and break do else elseif end false for function if in local nil not or repeat return then true until while goto'.split(' '));
/** What Lua code may read without declaring it: Lua's and Redis's globals. */
const GLOBALS = new Set(
  'redis cjson cmsgpack bit struct string table math tonumber tostring type pairs ipairs unpack pcall xpcall error select next assert rawget rawset rawequal setmetatable getmetatable'.split(
    ' ',
  ),
);

/** What a script's body may read besides globals and modules: what its function's first line makes. */
const SCRIPT_NAMES = new Set(['K', 'A', 'C', 'ITEMS', 'KEYS']);

/** The modules of the library (library.ts isModule): includes whose code declares `local <name> = {}`. */
function moduleNames(files = luaFiles()): Set<string> {
  return new Set(
    files
      .filter(({ file, source }) => file.startsWith('include/') && new RegExp(`^local ${path.basename(file, '.lua')} = \\{\\}$`, 'm').test(source))
      .map(({ file }) => path.basename(file, '.lua')),
  );
}

/** The names a file's `-- include:` lines name. */
const includesOf = (source: string) => new Set(namedIncludes(source));

/**
 * Walks a Lua file's tokens with its scopes: the names it reads that no scope of its own declares
 * (`free`), its top-level locals, and writes to each top-level local after its declaration.
 */
function walk(source: string): { free: Set<string>; top: Set<string>; topWrites: Set<string>; names: Set<string> } {
  const t = tokens(source);
  const scopes: Set<string>[] = [new Set()];
  const free = new Set<string>();
  const topWrites = new Set<string>();
  const groups: string[] = [];
  const declared = (name: string) => scopes.some((s) => s.has(name));
  // Every name the file declares, in any scope: none may hide a module it calls.
  const everyName = new Set<string>();
  const isTop = (name: string) => scopes[0].has(name) && !scopes.slice(1).some((s) => s.has(name));
  let forVars: string[] | null = null;
  for (let i = 0; i < t.length; i++) {
    const tok = t[i];
    const prev = t[i - 1];
    if (tok === '(' || tok === '[' || tok === '{') groups.push(tok);
    else if (tok === ')' || tok === ']' || tok === '}') groups.pop();
    if (tok === 'local' && t[i + 1] !== 'function') {
      for (let k = i + 1; /^[A-Za-z_]\w*$/.test(t[k] ?? ''); k += 2) {
        everyName.add(t[k]);
        if (t[k + 1] !== ',') break;
      }
      // The names after `local`.
      const names: string[] = [];
      let k = i + 1;
      for (; /^[A-Za-z_]\w*$/.test(t[k] ?? ''); k += 2) {
        names.push(t[k]);
        if (t[k + 1] !== ',') break;
      }
      // Declared from here on: `local x = x` reads an outer x only in a form this walk does not
      // need to tell apart (no module or script declares a local named as a free name it reads).
      names.forEach((n) => scopes[scopes.length - 1].add(n));
      i = k;
      continue;
    }
    if (tok === 'function') {
      if (prev === 'local') scopes[scopes.length - 1].add(t[i + 1]);
      else if (/^[A-Za-z_]\w*$/.test(t[i + 1]) && t[i + 2] !== '.' && t[i + 2] !== ':' && t[i + 2] !== '(') free.add(t[i + 1]);
      else if (/^[A-Za-z_]\w*$/.test(t[i + 1]) && t[i + 2] !== '(' && !declared(t[i + 1])) free.add(t[i + 1]);
      const open = t.indexOf('(', i);
      const params = new Set<string>();
      for (let k = open + 1; k < t.length && t[k] !== ')'; k++) if (/^[A-Za-z_]\w*$/.test(t[k])) params.add(t[k]);
      params.forEach((n) => everyName.add(n));
      if (prev === 'local') everyName.add(t[i + 1]);
      scopes.push(params);
      i = t.indexOf(')', open);
      groups.push('(');
      groups.pop();
      continue;
    }
    if (tok === 'for') {
      forVars = [];
      for (let k = i + 1; k < t.length && t[k] !== '=' && t[k] !== 'in'; k++) if (/^[A-Za-z_]\w*$/.test(t[k])) forVars.push(t[k]);
      forVars.forEach((n) => everyName.add(n));
      i += forVars.length * 2 - 1;
      continue;
    }
    if (tok === 'do') {
      scopes.push(new Set(forVars ?? []));
      forVars = null;
      continue;
    }
    if (tok === 'then' || tok === 'repeat') {
      scopes.push(new Set());
      continue;
    }
    if (tok === 'else') {
      scopes[scopes.length - 1] = new Set();
      continue;
    }
    if (tok === 'elseif' || tok === 'end' || tok === 'until') {
      if (scopes.length === 1) throw new Error(`'${tok}' closes no block`);
      scopes.pop();
      continue;
    }
    if (!/^[A-Za-z_]\w*$/.test(tok) || KEYWORDS.has(tok)) continue;
    if (prev === '.' || prev === ':') continue;
    // A key in a table constructor: `{ name = value }`.
    if (groups[groups.length - 1] === '{' && t[i + 1] === '=' && (prev === '{' || prev === ',' || prev === ';')) continue;
    if (!declared(tok)) free.add(tok);
    else if (isTop(tok)) {
      // A write to a top-level local: `x =`, `x.f =`, `x[k] =`, `table.insert(x, ...)`, after its declaration.
      let j = i + 1;
      while (t[j] === '.' || t[j] === '[') {
        if (t[j] === '.') j += 2;
        else {
          for (let depth = 0; j < t.length; j++) {
            if (t[j] === '[') depth++;
            else if (t[j] === ']' && --depth === 0) break;
          }
          j++;
        }
      }
      const assigned = t[j] === '=' || (t[j] === ',' && groups.length === 0 && /^[A-Za-z_]/.test(t[j + 1] ?? '') && t.slice(j).indexOf('=') < t.slice(j).indexOf('\n'));
      const inserted = t[i - 2] === '.' && t[i - 3] === 'table' && /^(insert|remove)$/.test(t[i - 1] ?? '');
      if (assigned || inserted || (prev === '(' && t[i - 2] === 'insert' && t[i - 3] === '.' && t[i - 4] === 'table')) topWrites.add(tok);
    }
  }
  if (scopes.length !== 1) throw new Error(`unbalanced blocks (${scopes.length - 1} open at the end)`);
  return { free, top: scopes[0], topWrites, names: everyName };
}

/**
 * What a module may not do (issue 42): read a name that neither it, Lua or Redis declares (a
 * local of the script that includes it, or of another include); keep state in a top-level local
 * (it would outlive the call, in a library Redis loads once); call a function of a module its
 * header does not include. Answers the problems found, one line each.
 */
function moduleProblems(file: string, source: string, modules: Set<string>): string[] {
  const self = path.basename(file, '.lua');
  const included = includesOf(source);
  const problems: string[] = [];
  // The `#!lua flags=...` line is Redis's, not Lua.
  const { free, top, topWrites, names } = walk(source.replace(/^#!.*/, ''));
  const isModule = file.startsWith('include/') && modules.has(self);
  // A local named as a module hides it from the code after it (`local options = ...` in put.lua
  // made its options.parse(...) a call of nothing): no Lua file names a local as a module.
  for (const name of names) if (modules.has(name) && name !== self) problems.push(`${file} declares ${name}, which hides the module of that name`);
  for (const name of free) {
    if (GLOBALS.has(name) || name === self) continue;
    if (modules.has(name) && included.has(name)) continue;
    if (modules.has(name)) problems.push(`${file} calls ${name}, a module its header does not include`);
    else if (isModule) problems.push(`${file} reads ${name}, which it does not declare (a free host local)`);
    // A script's body has the names its function's first line makes (library.ts body()), and no other.
    else if (!file.startsWith('include/') && !SCRIPT_NAMES.has(name)) problems.push(`${file} reads ${name}, which nothing declares`);
  }
  if (isModule) {
    for (const name of topWrites) problems.push(`${file} keeps state in top-level local ${name}`);
    if (!top.has(self)) problems.push(`${file} declares no module table ${self}`);
  }
  // A script's body runs on every call: a function it defines is made anew each time. Its
  // helpers belong to a module, which the library defines once, at load.
  if (!file.startsWith('include/') && /\bfunction\b/.test(source.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--.*$/gm, ''))) {
    problems.push(`${file} defines a function on every call`);
  }
  return problems;
}

describe('the library modules take what they use', () => {
  const mods = new Set(['record', 'clock']);
  it('finds a free host local, a top-level mutable local and a call to a module not included', () => {
    const host = ['--[[ m: x ]]', 'local m = {}', 'function m.f(C) return now + C.K.x end'].join('\n');
    expect(moduleProblems('include/m.lua', host, new Set([...mods, 'm']))).toEqual(['include/m.lua reads now, which it does not declare (a free host local)']);
    const state = ['--[[ m: x ]]', 'local m = {}', 'local seen = nil', 'local cache = {}', 'function m.f(C, v) seen = v cache[v] = 1 end'].join('\n');
    expect(moduleProblems('include/m.lua', state, new Set([...mods, 'm'])).sort()).toEqual([
      'include/m.lua keeps state in top-level local cache',
      'include/m.lua keeps state in top-level local seen',
    ]);
    const undeclared = ['--[[ m: x ]]', '-- include: clock', 'local m = {}', 'function m.f(C) return record.decode(clock.now(C)) end'].join('\n');
    expect(moduleProblems('include/m.lua', undeclared, new Set([...mods, 'm']))).toEqual(['include/m.lua calls record, a module its header does not include']);
    const hidden = ['--[[ m: x ]]', '-- include: clock', 'local m = {}', 'function m.f(C, clock) return clock.now(C) end'].join('\n');
    expect(moduleProblems('include/m.lua', hidden, new Set([...mods, 'm']))).toEqual(['include/m.lua declares clock, which hides the module of that name']);
    // A script reads only what its first line makes, globals and modules.
    expect(moduleProblems('claim.lua', '-- include: clock\nlocal d = earliest(K.delayed)\nreturn { clock.now(C), d, A.count, ITEMS }', mods)).toEqual([
      'claim.lua reads earliest, which nothing declares',
    ]);
    // A script defines no function: each would be made anew on every call.
    expect(moduleProblems('log.lua', '-- include: clock\nlocal function close() return clock.now(C) end\nreturn close()', mods)).toEqual(['log.lua defines a function on every call']);
    expect(moduleProblems('clean.lua', '-- include: clock\nlocal n = walk(K.x, function(i) return i end)\nreturn n', mods)).toEqual([
      'clean.lua reads walk, which nothing declares',
      'clean.lua defines a function on every call',
    ]);
    // A script too: a module call needs its include line.
    expect(moduleProblems('put.lua', 'local now = clock.now(C)\nreturn now', mods)).toEqual(['put.lua calls clock, a module its header does not include']);
    // Constants, private functions, parameters, loop variables, table keys and globals are fine.
    const fine = [
      '--[[ m: x ]]',
      '-- include: clock',
      'local m = {}',
      'local LIMIT, NAMES = 10, { a = 1 }',
      'local function helper(x) return x + LIMIT end',
      'function m.f(C, list)',
      '  local out = { at = clock.now(C), n = NAMES.a }',
      '  for i, v in ipairs(list) do out[i] = helper(v) end',
      "  return cjson.encode(out), string.format('%d', #list), C.K.tasks",
      'end',
    ].join('\n');
    expect(moduleProblems('include/m.lua', fine, new Set([...mods, 'm']))).toEqual([]);
  });

  it('holds for every Lua file: each module takes its inputs, keeps no state, and includes what it calls', () => {
    const files = luaFiles();
    const modules = moduleNames(files);
    expect(modules.size).toBeGreaterThan(5);
    expect(files.flatMap(({ file, source }) => moduleProblems(file, source, modules))).toEqual([]);
  });
});
