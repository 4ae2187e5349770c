/**
 * The TypeScript examples of README.md and docs/*.md compile against lib/, and those marked
 * `runnable` run against the test Redis, so the docs cannot drift from the API unnoticed.
 *
 * The convention the examples follow (README.md's Set-up section says it for contributors):
 * - Every ```ts (or ```typescript) fence is checked, all in one TypeScript program: the project's
 *   tsconfig (strict), as ES modules (top-level await), `docket` resolving to lib/index.ts.
 * - An example is a fragment of its page. It sees docket's exports as if imported, and the
 *   prelude (support/doc-prelude.ts): the page's shared objects (`docket` and `scheduler`, a
 *   `task`, a `hash`...) and the application's own stand-ins (`sendMail`, `payload`...). Its own
 *   declarations and imports win. Express, Fastify and pino, which docket does not depend on, are
 *   typed stand-ins there too. Add to the prelude only a name that pages use as given.
 * - A line `name(params): Type` at the start of a line is an API signature, checked as
 *   `declare function`, and `name` must be an export of docket or a method of the types api.md
 *   documents (Scheduler, Worker, Queue...).
 * - `// <name>.ts: ...` as the first line names the example's file, so the page's other examples
 *   can import it (`./jobs` in README.md).
 * - A line the example shows failing to compile carries `// @ts-expect-error`, so it must fail.
 * - ```ts skip-check: not checked. Only for pseudo-code or an example wrong on purpose.
 * - ```ts runnable: complete as pasted (no prelude names: checked) and run in a child process
 *   against the test Redis, under a prefix of its own (support/doc-run-child.ts). It must end by
 *   itself, after a SIGTERM if it listens for one, within RUN_LIMIT_MS.
 * - ```ts bullmq: BullMQ's side of docs/guide/migrating-from-bullmq.md. Complete as pasted (no
 *   prelude names, no docket import), type-checked in strict mode against the bullmq package the
 *   benchmarks install, and never run.
 *
 * The guide (docs/guide/) teaches by these examples, so each of its pages has at least one that is
 * checked, and every relative link of it, README.md and docs/*.md (file and #anchor) resolves
 * (support/doc-links.ts).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { childModule } from './support/children';
import { brokenLinks } from './support/doc-links';
import { PRELUDE } from './support/doc-prelude';
import { checkSnippets, readSnippets, ROOT, snippetsOf, transpileRunnable, type Snippet } from './support/doc-snippets';
import { testUrl, uniquePrefix } from './support/harness';

const RUN_LIMIT_MS = 8000;
const snippets = readSnippets();
const runnable = snippets.filter((s) => s.flags.has('runnable'));

/** A made-up page of examples that must each be reported: the check fails when it should. */
const CANARY = [
  '```ts',
  'const n: number = docket.put;', // line 2: a type error
  '```',
  '```ts skip-check',
  'this is not TypeScript at all',
  '```',
  '```ts runnable',
  'await sendMail(null);', // line 8: a runnable example that leans on the prelude
  '```',
  '```ts',
  'putt(data: Json): Promise<PutResult>', // line 11: a signature of no method
  '```',
  '```ts bullmq',
  "import { Queue } from 'bullmq';",
  "const queue = new Queue('email', { connection: { host: 'localhost' } });",
  "await queue.add('welcome', {}, { delay: 'soon' });", // line 16: bullmq's own types catch it
  'await sendMail(null);', // line 17: a bullmq example stands alone too
  "import { createScheduler } from 'docket';", // line 18: and shows BullMQ only
  '```',
].join('\n');

/** The guide's pages, relative to the repository root. */
const GUIDE = readdirSync(path.join(ROOT, 'docs', 'guide'))
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => `docs/guide/${name}`);

describe('documentation examples', () => {
  it('finds the examples of every page, the runnable ones included', () => {
    const pages = new Set(snippets.map((s) => s.page));
    expect([...pages]).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/operations.md', 'docs/scaling.md']));
    // Signatures live in docs/reference/ (generated) and no longer in api.md (issue 43): 75 examples then.
    expect(snippets.length).toBeGreaterThan(60);
    expect(runnable.map((s) => s.page)).toEqual(expect.arrayContaining(['README.md', 'docs/api.md']));
  });

  it('checks at least one example of every page of the guide', () => {
    expect(GUIDE).toEqual(expect.arrayContaining(['docs/guide/README.md', 'docs/guide/getting-started.md', 'docs/guide/migrating-from-bullmq.md']));
    const checked = new Set(snippets.filter((s) => !s.flags.has('skip-check')).map((s) => s.page));
    expect(GUIDE.filter((page) => !checked.has(page))).toEqual([]);
    // Both sides of the migration guide's service are compiled.
    const migration = snippets.filter((s) => s.page === 'docs/guide/migrating-from-bullmq.md');
    expect(migration.filter((s) => s.flags.has('bullmq')).length).toBeGreaterThan(0);
  });

  it('resolves every relative link of the guide, README.md and docs/*.md, file and #anchor', () => {
    const canary = [
      '[api](../api.md#de-duplication)',
      '[gone](../nowhere.md)',
      '[bad](../api.md#no-such-heading)',
      '[here](#contents)',
      '[not here](#elsewhere)',
      '`[code](../nowhere.md)`',
      '## Contents',
    ].join('\n');
    expect(brokenLinks(ROOT, 'docs/guide/canary.md', canary)).toEqual([
      'docs/guide/canary.md:2: ../nowhere.md: no such file',
      'docs/guide/canary.md:3: ../api.md#no-such-heading: no heading with the anchor #no-such-heading',
      'docs/guide/canary.md:5: #elsewhere: no heading with the anchor #elsewhere',
    ]);
    // The guide sends its readers to README.md and api.md's sections; they and the other pages of
    // docs/ send them back and to each other.
    const docs = readdirSync(path.join(ROOT, 'docs'))
      .filter((file) => file.endsWith('.md'))
      .map((file) => `docs/${file}`);
    const pages = [...GUIDE, 'README.md', ...docs];
    expect(docs).toEqual(expect.arrayContaining(['docs/api.md', 'docs/operations.md', 'docs/design.md', 'docs/guarantees.md']));
    expect(pages.flatMap((page) => brokenLinks(ROOT, page, readFileSync(path.join(ROOT, page), 'utf8')))).toEqual([]);
  });

  it('type-checks every TypeScript example against lib/', () => {
    const canary = snippetsOf('canary.md', CANARY);
    const findings = checkSnippets([...snippets, ...canary], PRELUDE);
    const messages = (page: string) => findings.filter((f) => f.snippet.page === page).map((f) => f.message);
    expect(messages('canary.md')).toEqual([
      expect.stringMatching(/^canary\.md:2: TS2322 /),
      expect.stringMatching(/^canary\.md:8: runnable, but uses the prelude's stand-in "sendMail"/),
      expect.stringMatching(/^canary\.md:11: signature of "putt"/),
      expect.stringMatching(/^canary\.md:16: TS2322 /),
      expect.stringMatching(/^canary\.md:17: a bullmq example, but uses the prelude's stand-in "sendMail"/),
      expect.stringMatching(/^canary\.md:18: a bullmq example imports docket/),
    ]);
    expect(findings.filter((f) => f.snippet.page !== 'canary.md').map((f) => f.message)).toEqual([]);
  }, 60_000);

  it.each(runnable.map((s) => [`${s.page}:${s.line}`, s] as const))(
    'runs %s to its end against Redis',
    async (_where, snippet) => {
      const prefix = uniquePrefix('docs');
      const { code, stderr, opened } = await run(snippet, prefix);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      // It went through the shim, so it ran on the test server: docket's import is what it ran.
      expect(opened).toBeGreaterThan(0);
    },
    30_000,
  );
});

/** Runs a runnable snippet in a child process, with the page's named files beside it. */
async function run(snippet: Snippet, prefix: string): Promise<{ code: number | null; stderr: string; opened: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'docket-docs-'));
  try {
    const child = childModule(path.join(ROOT, '__tests__', 'support', 'doc-run-child.ts'));
    // `docket` is the shim in doc-run-child; every other package comes from the project.
    mkdirSync(path.join(dir, 'node_modules', 'docket'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', 'docket', 'index.js'), `module.exports = require(${JSON.stringify(child.module)}).docketForSnippets;\n`);
    const siblings = snippets.filter((other) => other.page === snippet.page && !other.flags.has('bullmq') && (other === snippet || !path.basename(other.file).startsWith('line-')));
    for (const s of siblings) {
      writeFileSync(path.join(dir, path.basename(s.file).replace(/\.ts$/, '.js')), transpileRunnable(s));
    }
    const main = path.join(dir, path.basename(snippet.file).replace(/\.ts$/, '.js'));
    const opened = path.join(dir, 'opened');
    writeFileSync(opened, '');
    const env = { ...process.env, DOCKET_DOCS_PREFIX: prefix, DOCKET_DOCS_OPENED: opened, REDIS_URL: testUrl(), NODE_PATH: path.join(ROOT, 'node_modules') };
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [...child.execArgv, child.module, main], { env, timeout: RUN_LIMIT_MS, killSignal: 'SIGKILL' }, (error, _stdout, stderr) => {
        if (error?.killed) resolve({ code: null, stderr: `${stderr}did not end within ${RUN_LIMIT_MS} ms: a scheduler left open?` });
        else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stderr });
      });
    });
    return { code, stderr, opened: readFileSync(opened, 'utf8').split('\n').filter(Boolean).length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
