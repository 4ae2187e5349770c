/**
 * The TypeScript examples of README.md, docs/*.md and docs/guide/*.md, read out of their fences
 * and type-checked together in one TypeScript program (the convention they follow is in
 * docs-examples.test.ts). Each snippet is a virtual file of its own; `docket` resolves to
 * lib/index.ts, and `bullmq` to the devDependency the benchmarks use.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..', '..');
const LIB_INDEX = path.join(ROOT, 'lib', 'index.ts');
/** Where the snippets live in the program: one folder per page, so `./jobs` finds that page's jobs.ts. */
const VIRTUAL = path.join(ROOT, '.docs-snippets');
const PRELUDE = path.join(VIRTUAL, 'prelude.d.ts');
const FLAGS = new Set(['runnable', 'skip-check', 'bullmq']);
/** The folders whose pages hold examples, besides README.md: not recursive, so a new folder is added here on purpose. */
const DOC_DIRS = ['docs', 'docs/guide'];

export interface Snippet {
  /** The page, relative to the repository root: `docs/api.md`. */
  page: string;
  /** The line of the opening fence (1-based). */
  line: number;
  flags: Set<string>;
  code: string;
  /** The snippet's file in the program: `<page>/<name>.ts` for a snippet that opens with `// <name>.ts: ...`. */
  file: string;
}

/** The pages whose examples are checked, relative to the repository root: README.md, then each of DOC_DIRS' .md files. */
export function docPages(): string[] {
  const pagesOf = (dir: string) =>
    readdirSync(path.join(ROOT, dir))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `${dir}/${name}`);
  return ['README.md', ...DOC_DIRS.flatMap(pagesOf)];
}

/** Every ```ts / ```typescript block of docPages(), in page order. */
export function readSnippets(): Snippet[] {
  return docPages().flatMap((page) => snippetsOf(page, readFileSync(path.join(ROOT, page), 'utf8')));
}

export function snippetsOf(page: string, text: string): Snippet[] {
  const lines = text.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(ts|typescript)(?:\s+(.*))?\s*$/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    const body: string[] = [];
    const start = i;
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) body.push(lines[i].slice(Math.min(indent, lines[i].search(/\S|$/))));
    const flags = new Set((open[3] ?? '').split(/\s+/).filter(Boolean));
    for (const flag of flags) if (!FLAGS.has(flag)) throw new Error(`${page}:${start + 1}: unknown fence flag "${flag}" (known: ${[...FLAGS].join(', ')})`);
    const code = body.join('\n');
    const named = /^\/\/ ([\w-]+)\.ts: /.exec(code);
    const file = path.join(VIRTUAL, page.replace(/[/.]/g, '_'), named ? `${named[1]}.ts` : `line-${start + 1}.ts`);
    snippets.push({ page, line: start + 1, flags, code, file });
  }
  return snippets;
}

/**
 * A line that is a call signature at the start of a line, as the API reference writes them
 * (`put(data: Json, options?: PutOptions): Promise<PutResult>`): checked as a `declare function`.
 */
const SIGNATURE = /^([A-Za-z_$][\w$]*)(<[^(]*>)?\(.*\):\s*\S/;

interface Source {
  snippet: Snippet;
  text: string;
  /** Lines put before the snippet's own. */
  header: number;
  /** The signature lines: their line in the snippet (0-based) and the name they declare. */
  signatures: Array<{ at: number; name: string }>;
}

/** What the program sees of a snippet: its signatures declared, and docket's exports it lacks imported. */
function sourceOf(snippet: Snippet, exportsOf: string[]): Source {
  // BullMQ's side shows no docket signatures: its lines are BullMQ's.
  if (snippet.flags.has('bullmq')) return { snippet, text: snippet.code, header: 0, signatures: [] };
  const signatures: Source['signatures'] = [];
  const body = snippet.code
    .split('\n')
    .map((line, at) => {
      const name = SIGNATURE.exec(line)?.[1];
      if (!name || KEYWORDS.has(name)) return line;
      signatures.push({ at, name });
      return `declare function ${line}`;
    })
    .join('\n');
  if (standsAlone(snippet)) return { snippet, text: body, header: 0, signatures };
  const own = declaredNames(body);
  const missing = exportsOf.filter((name) => !own.has(name));
  return { snippet, text: `import { ${missing.join(', ')} } from 'docket';\n${body}`, header: 1, signatures };
}

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'await', 'typeof']);

/** The names a snippet declares or imports at its top level. */
function declaredNames(text: string): Set<string> {
  const names = new Set<string>();
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.ES2022);
  const add = (name: ts.BindingName | ts.Identifier | undefined) => {
    if (!name) return;
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) add(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      add(clause?.name);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) add(bindings.name);
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) add(element.name);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) add(declaration.name);
    } else if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
      add(statement.name);
    }
  }
  return names;
}

/** The names lib/index.ts exports, read from its export declarations. */
function docketExports(): string[] {
  const source = ts.createSourceFile(LIB_INDEX, readFileSync(LIB_INDEX, 'utf8'), ts.ScriptTarget.ES2022);
  return source.statements.flatMap((statement) =>
    ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements.map((element) => element.name.text) : [],
  );
}

/** The project's compiler options, changed only where snippets differ from the project's files. */
function compilerOptions(): ts.CompilerOptions {
  const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile) as { config: { compilerOptions: object } };
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, ROOT);
  return {
    ...options,
    // Snippets use top-level await and import.meta, as an ES module does.
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    // Each snippet is a module of its own, import or not, so two snippets' names never clash.
    moduleDetection: ts.ModuleDetectionKind.Force,
    // An example may show a value it does not go on to use.
    noUnusedLocals: false,
    noUnusedParameters: false,
    types: ['node'],
    // `import ... from 'docket'` is the source, as `docket/...` would be lib/....
    paths: { docket: [LIB_INDEX], 'docket/*': [path.join(ROOT, 'lib', '*')] },
    noEmit: true,
    declaration: false,
    sourceMap: false,
    rootDir: undefined,
  };
}

export interface Finding {
  snippet: Snippet;
  /** `docs/api.md:431: TS2345 Argument of type ...` */
  message: string;
}

/** Type-checks every snippet not marked skip-check in one program and returns what is wrong, by page and line. */
export function checkSnippets(snippets: Snippet[], prelude: string): Finding[] {
  const checked = snippets.filter((s) => !s.flags.has('skip-check'));
  const names = new Map<string, Snippet>();
  for (const s of checked) {
    const other = names.get(s.file);
    if (other) throw new Error(`${s.page}:${s.line}: a second snippet named ${path.basename(s.file)} (the first is at line ${other.line})`);
    names.set(s.file, s);
  }
  const exportsOf = docketExports();
  const sources = new Map<string, Source>();
  for (const s of checked) sources.set(s.file, sourceOf(s, exportsOf));
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const textOf = (file: string) => (file === PRELUDE ? prelude : sources.get(file)?.text);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (file, language, ...rest) => {
    const text = textOf(file);
    return text === undefined ? getSourceFile.call(host, file, language, ...rest) : ts.createSourceFile(file, text, language);
  };
  host.fileExists = (file) => textOf(file) !== undefined || fileExists.call(host, file);
  host.readFile = (file) => textOf(file) ?? readFile.call(host, file);
  const { directoryExists } = host;
  host.directoryExists = (dir) => dir.startsWith(VIRTUAL) || (directoryExists?.call(host, dir) ?? true);
  const program = ts.createProgram([PRELUDE, ...sources.keys()], options, host);
  const findings: Finding[] = [];
  const preludeDiagnostics = [...program.getSyntacticDiagnostics(program.getSourceFile(PRELUDE)), ...program.getSemanticDiagnostics(program.getSourceFile(PRELUDE))];
  if (preludeDiagnostics.length) throw new Error(`the prelude does not compile: ${preludeDiagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ')}`);
  const known = apiNames(program);
  for (const [file, { snippet, header, signatures }] of sources) {
    const source = program.getSourceFile(file)!;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    for (const d of diagnostics) {
      const at = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line - header;
      findings.push({ snippet, message: `${snippet.page}:${snippet.line + 1 + Math.max(at, 0)}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n  ')}` });
    }
    if (standsAlone(snippet)) findings.push(...preludeUses(program, source, snippet));
    if (snippet.flags.has('bullmq')) findings.push(...docketImports(source, snippet));
    for (const { at, name } of signatures) {
      if (!known.has(name))
        findings.push({ snippet, message: `${snippet.page}:${snippet.line + 1 + at}: signature of "${name}", which is neither an export of docket nor a method of ${OWNERS.join(', ')}` });
    }
  }
  return findings;
}

/** The types whose methods api.md shows as bare signatures (`put(data: Json, ...): ...`). */
const OWNERS = ['Scheduler', 'Worker', 'Queue', 'Sharded', 'ShardedWorker', 'Task'];

/** docket's exports and the methods of OWNERS, as the program sees lib/. */
function apiNames(program: ts.Program): Set<string> {
  const checker = program.getTypeChecker();
  const index = checker.getSymbolAtLocation(program.getSourceFile(LIB_INDEX)!)!;
  const names = new Set<string>();
  for (const symbol of checker.getExportsOfModule(index)) {
    names.add(symbol.name);
    if (!OWNERS.includes(symbol.name)) continue;
    const type = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(symbol));
    for (const property of type.getProperties()) names.add(property.name);
  }
  for (const owner of OWNERS) if (!names.has(owner)) throw new Error(`docket no longer exports ${owner}: update OWNERS`);
  return names;
}

/**
 * A snippet complete as pasted: a runnable one (it runs), and a ```ts bullmq one, BullMQ's side of
 * the migration guide, checked against bullmq's own types and never run (it would need BullMQ's
 * Redis set-up; compiling it is what keeps it honest about BullMQ's API). Neither sees docket's
 * exports or the prelude's stand-ins.
 */
function standsAlone(snippet: Snippet): boolean {
  return snippet.flags.has('runnable') || snippet.flags.has('bullmq');
}

/** A BullMQ example shows BullMQ: an import of docket in it would make it half of each. */
function docketImports(source: ts.SourceFile, snippet: Snippet): Finding[] {
  return source.statements
    .filter((s): s is ts.ImportDeclaration => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && /^docket(\/|$)/.test(s.moduleSpecifier.text))
    .map((s) => ({ snippet, message: `${snippet.page}:${snippet.line + 1 + source.getLineAndCharacterOfPosition(s.getStart()).line}: a bullmq example imports docket` }));
}

/** A runnable snippet runs as pasted, so it may not lean on the prelude's stand-ins. */
function preludeUses(program: ts.Program, source: ts.SourceFile, snippet: Snippet): Finding[] {
  const checker = program.getTypeChecker();
  const found: Finding[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node)) {
      const declarations = checker.getSymbolAtLocation(node)?.declarations ?? [];
      if (declarations.some((d) => d.getSourceFile().fileName === PRELUDE)) {
        const at = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const kind = snippet.flags.has('bullmq') ? 'a bullmq example' : 'runnable';
        found.push({ snippet, message: `${snippet.page}:${snippet.line + 1 + at}: ${kind}, but uses the prelude's stand-in "${node.text}": define or import it` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A runnable snippet as CommonJS, its top-level code wrapped in an async function (top-level await). */
export function transpileRunnable(snippet: Snippet): string {
  const { outputText } = ts.transpileModule(snippet.code, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, esModuleInterop: true, moduleDetection: ts.ModuleDetectionKind.Force },
    fileName: snippet.file,
  });
  return `exports.__ran = (async () => {\n${outputText}\n})();\n`;
}
