/**
 * The domain's words are said once: lib/domain/domain.ts holds them, no other module keeps a copy, and
 * the one the Lua side must hold itself (the attempts a record leaves out) agrees with it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_ATTEMPTS, LISTED_STATES, MAX_ERROR_CHARS, TASK_STATES } from '../lib/domain/domain';
import { parseMeta } from '../lib/domain/meta';

const root = join(__dirname, '..');

function modules(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return modules(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('the domain module', () => {
  it('lists every task state once, in both orders', () => {
    expect(new Set(TASK_STATES).size).toBe(TASK_STATES.length);
    expect([...LISTED_STATES].sort()).toEqual([...TASK_STATES].sort());
  });

  it('is the only module that defines the states, the default attempts and the error cut', () => {
    const defined = /\b(?:const|let|var)\s+(TASK_STATES|DEFAULT_MAX_ATTEMPTS|MAX_ERROR_CHARS|USUAL_ATTEMPTS|STATES)\s*=(?!\s*LISTED_STATES\b)/;
    const stateUnion = /type\s+TaskState\s*=\s*'/;
    // The public TaskState (lib/types/ imports nothing of the layers) spells the union out, and
    // domain.ts checks it against TASK_STATES at compile time: it is no copy that can drift.
    const publicState = join('lib', 'types', 'task.ts');
    const copies = modules('lib')
      .filter((path) => path !== join('lib', 'domain', 'domain.ts'))
      .filter((path) => {
        const text = readFileSync(join(root, path), 'utf8');
        return defined.test(text) || (path !== publicState && stateUnion.test(text));
      });
    expect(copies).toEqual([]);
    expect(stateUnion.test(readFileSync(join(root, publicState), 'utf8'))).toBe(true);
    expect(readFileSync(join(root, 'lib', 'domain', 'domain.ts'), 'utf8')).toMatch(/type NamedState = Agreed<\(typeof TASK_STATES\)\[number\], TaskState>;/);
  });

  it('agrees with lua/include/record.lua on the attempts a record leaves out', () => {
    const lua = readFileSync(join(root, 'lua', 'include', 'record.lua'), 'utf8');
    expect(/^local USUAL_ATTEMPTS = (\d+)$/m.exec(lua)?.[1]).toBe(String(DEFAULT_MAX_ATTEMPTS));
    // No second literal for it: the record's decode and encode both use the name.
    expect(lua).toMatch(/meta\.m or USUAL_ATTEMPTS/);
    expect(lua).toMatch(/if m == USUAL_ATTEMPTS then meta\.m = nil end/);
    // And the client reads a record without `m` as that many attempts.
    expect(parseMeta('{"c":1}', 'a record').m).toBe(DEFAULT_MAX_ATTEMPTS);
    // A record with its creation time alone is stored as that number.
    expect(parseMeta('1795000000000', 'a record')).toEqual({ c: 1795000000000, r: 1795000000000, n: 0, m: DEFAULT_MAX_ATTEMPTS });
    expect(lua).toMatch(/string\.byte\(text, 1\) == 123 and cjson\.decode\(text\) or \{ c = tonumber\(text\) \}/);
  });

  it('cuts errors at one length everywhere', () => {
    expect(MAX_ERROR_CHARS).toBeGreaterThan(0);
    const cutters = ['lib/life/holder.ts', 'lib/surfaces/dashboard/api.ts', 'lib/surfaces/dashboard/lookup.ts', 'lib/surfaces/cli/outcome.ts'];
    for (const path of cutters) expect([path, readFileSync(join(root, path), 'utf8').includes("import { MAX_ERROR_CHARS } from '")]).toEqual([path, true]);
  });
});
