/**
 * Every public symbol of docket has a doc comment, which the generated reference (docs/reference/,
 * `npm run docs:reference`) is made of: each export of lib/index.ts, and each public member of an
 * exported interface or class. The walker is first run on a fixture whose undocumented symbols are
 * known, so the check fails when it should.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { undocumented } from './support/doc-comments';

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
