/**
 * Small modules: a TypeScript module over 300 lines only where its header says which one concept
 * it is and why it is not split; the facade (lib/surfaces/facade/, the Scheduler split by concept)
 * has no such exception. (The Lua files' bound, 120 lines, is checked by scripts.test.ts.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');

function files(dir: string, ext: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return files(path, ext);
    return name.endsWith(ext) ? [path] : [];
  });
}

const lines = (path: string) => readFileSync(join(root, path), 'utf8').trimEnd().split('\n').length;

describe('module size', () => {
  it('finds the modules it checks', () => {
    expect(files('lib', '.ts')).toContain(join('lib', 'life', 'worker.ts'));
  });

  it('gives every TypeScript module over 300 lines a header naming its one concept', () => {
    const long = files('lib', '.ts').filter((path) => lines(path) > 300);
    const unsaid = long.filter((path) => {
      const header = /^\/\*\*[\s\S]*?\*\//.exec(readFileSync(join(root, path), 'utf8'))?.[0] ?? '';
      return !/One concept over 300 lines: \S/.test(header);
    });
    expect(unsaid).toEqual([]);
  });

  it('keeps every module of the facade under 300 lines, with no exception', () => {
    const facade = files(join('lib', 'surfaces', 'facade'), '.ts');
    expect(facade).toContain(join('lib', 'surfaces', 'facade', 'scheduler.ts'));
    expect(facade.filter((path) => lines(path) > 300)).toEqual([]);
  });
});
