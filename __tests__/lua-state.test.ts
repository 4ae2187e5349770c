/**
 * Includes without shared state (STYLE.md, Lua): a variable an include declares at its top level
 * is written only by that include's own functions. No other Lua file assigns it (`name =`,
 * `a, name =`), writes into it (`name[k] =`, `name.f =`, `table.insert(name, ...)`), unless that
 * file declares a local of the same name itself (a parameter, a loop variable, a local) in scope.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
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
