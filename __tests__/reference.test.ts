/**
 * Every public symbol of docket has a doc comment, which the generated reference (docs/reference/,
 * `npm run docs:reference`) is made of: each export of lib/index.ts, and each public member of an
 * exported interface or class. The walker is first run on a fixture whose undocumented symbols are
 * known, so the check fails when it should. And each option, field and property is documented
 * there only: no page of docs/ (nor the README) lists a type's members in a table of its own,
 * which nothing would keep in step with the code.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readFileSync, readdirSync } from 'node:fs';
import { undocumented } from './support/doc-comments';
import { exportedMembers, repeatedTables } from './support/doc-tables';

/** A small package: what it leaves undocumented is listed in the test below. */
const FIXTURE = {
  'index.ts': ["export { Shape, Plain, Box } from './shapes';", "export type { Outside } from './shapes';", '/** Documented. */', 'export const answer = 42;', 'export const bare = 1;'].join(
    '\n',
  ),
  'shapes.ts': [
    "import type { EventEmitter } from 'node:events';",
    '/** A shape. */',
    'export interface Shape {',
    '  /** Documented. */',
    '  size: number;',
    '  colour: string;',
    '  /** The comment on one overload documents the method. */',
    '  grow(by: number): void;',
    '  grow(by: string): void;',
    '  shrink(): void;',
    '}',
    'export interface Plain { name: string }',
    "/** Its private members are no one else's business; Error's are not ours. */",
    'export class Box extends Error {',
    '  private secret = 1;',
    '  protected inner = 2;',
    '  #hidden = 3;',
    '  /** Documented. */',
    '  width = 4;',
    '  height = 5;',
    '  read(): number { return this.secret + this.inner + this.#hidden; }',
    '}',
    '/** Members declared outside the source root are not checked. */',
    'export type Outside = EventEmitter;',
  ].join('\n'),
};

describe('reference: doc comments', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'docket-reference-'));
    mkdirSync(path.join(dir, 'src'));
    for (const [name, text] of Object.entries(FIXTURE)) writeFileSync(path.join(dir, 'src', name), text);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports each undocumented export and public member of a fixture, and nothing else', () => {
    const root = path.join(dir, 'src');
    expect(undocumented(path.join(root, 'index.ts'), root)).toEqual(['Shape.colour', 'Shape.shrink', 'Plain', 'Plain.name', 'Box.height', 'Box.read', 'bare']);
  });

  it('finds a doc comment on every public symbol of docket', () => {
    const root = path.join(__dirname, '..', 'lib');
    const missing = undocumented(path.join(root, 'index.ts'), root);
    if (missing.length > 0) throw new Error(`${missing.length} public symbols have no doc comment:\n  ${missing.join('\n  ')}`);
  });
});

describe('reference: each option documented once, in the code', () => {
  const root = path.join(__dirname, '..', 'lib');
  const types = exportedMembers(path.join(root, 'index.ts'), root);

  it('finds a table that lists a type’s members, by a member heading or by the type’s name, and lets a comparison be', () => {
    const page = [
      '| Property | Default | Description |',
      '| --- | --- | --- |',
      '| `delay` | `0` | How long. |',
      '| `expire?` | none | Until when. |',
      '',
      '| `ResultOptions` | Default | Description |',
      '| --- | --- | --- |',
      '| `queue` | default | The queue. |',
      '| `wait` | none | How long. |',
      '',
      '| Span | Range |',
      '| --- | --- |',
      '| `delay` | 0 to 100 years |',
      '| `expire` | 1 ms to 100 years |',
      '',
      '```md',
      '| Option | Default |',
      '| --- | --- |',
      '| `delay` | `0` |',
      '| `expire` | none |',
      '```',
    ].join('\n');
    expect(repeatedTables(page, types)).toEqual(['line 1 repeats PutOptions (delay, expire)', 'line 6 repeats ResultOptions (queue, wait)']);
  });

  it('finds no page of docs/ or the README repeating a type’s members in a table', () => {
    const docs = path.join(__dirname, '..', 'docs');
    const pages = [
      'README.md',
      ...readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
      ...readdirSync(path.join(docs, 'guide'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/guide/${f}`),
    ];
    const repeats = pages.flatMap((page) => repeatedTables(readFileSync(path.join(__dirname, '..', page), 'utf8'), types).map((r) => `${page}: ${r}`));
    if (repeats.length > 0) throw new Error(`${repeats.length} tables repeat what the doc comments say (say it there, and link to docs/reference/):\n  ${repeats.join('\n  ')}`);
  });
});
