/**
 * The Redis Functions library: every operation (lua/<name>.lua) as one function of one library,
 * which each Redis node loads once (FUNCTION LOAD) and every call runs by name (FCALL, or FCALL_RO
 * for a read-only one). Before, each call was a script (EVALSHA) that defined every function its
 * includes hold before it did any work; a library defines them once, when it is loaded.
 *
 * The library is built from the Lua files alone: each script's header names its keys and
 * arguments (__tests__/scripts.test.ts holds each header to its op in lib/ops), so no list of ops
 * is kept anywhere. Its name carries docket's version and a hash of its code, and so do its
 * functions' names (function names are global on a server): two versions of docket, or two builds
 * of one, share a Redis during a rolling deploy, each calling its own code.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ScriptFlags, ScriptSpec } from './op';

/** Where the Lua files live: next to lib/ under jest, next to dist/ once installed. */
export const LUA_DIR = path.join(__dirname, '..', '..', 'lua');

/** What every library docket loads is called: this, then the version and the code's hash. */
export const LIBRARY_PREFIX = 'docket_';

/** How an op is called, as body() needs it: its name (and own file), keys and arguments. */
type Shape = Pick<ScriptSpec, 'name' | 'file'> & { readonly keys: readonly string[]; readonly args: readonly string[]; readonly each?: readonly string[] };

/** A library ready to load: its name, its source (FUNCTION LOAD's argument) and its functions by op name. */
export interface Library {
  readonly name: string;
  readonly source: string;
  /** The function an op's calls name (FCALL <fn>): the library's name, then the op's. */
  fn(op: string): string;
}

/** docket's version, as package.json says (beside lib/ under jest, beside dist/ once installed). */
export function version(): string {
  return (JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** The library of docket's own operations: every lua/*.lua. Built once per process. */
let main: Library | undefined;
export function docketLibrary(): Library {
  return (main ??= libraryOf(
    readdirSync(LUA_DIR)
      .filter((f) => f.endsWith('.lua'))
      .sort()
      .map((f) => path.join(LUA_DIR, f)),
  ));
}

/**
 * The library of the Lua files given: one function per file, named by the file (lua/claim.lua is
 * op `claim`). An op with a Lua file of its own (a test's) gets a library of its own this way.
 */
export function libraryOf(files: readonly string[]): Library {
  const modules: string[] = [];
  const parts = files.map((file) => registration(path.basename(file, '.lua'), readFileSync(file, 'utf8'), modules));
  const body = [moduleCode(modules), ...parts].join('\n');
  const hash = createHash('sha1').update(body).digest('hex').slice(0, 12);
  const name = `${LIBRARY_PREFIX}${version().replace(/\W/g, '_')}_${hash}`;
  return {
    name,
    source: `#!lua name=${name}\n${body.replaceAll(NAME_MARK, name)}\n`,
    fn: (op) => `${name}_${op}`,
  };
}

/** Stands for the library's name in the code before the name (a hash of that code) is known. */
const NAME_MARK = '@LIBRARY@';

/** One op's registration: its function's name, its body as the callback, its flags. */
function registration(op: string, source: string, modules: string[]): string {
  const { flags, keys, args, each } = readHeader(op, source);
  const code = body({ name: op, keys, args, each }, source, modules);
  const flagged = flags ? `'${flags}'` : '';
  // The callback's parameters are named as EVAL's globals were, so a body reads them the same way.
  return `redis.register_function{function_name='${NAME_MARK}_${op}', flags={${flagged}}, callback=function(KEYS, ARGV)\n${code}\nend}`;
}

/**
 * What a call of `op` runs: its Lua file without the `#!lua` line (its include lines name the
 * modules it calls, which the library defines once: withIncludes collects them in `modules`),
 * after one line that builds the table `K` of its keys by suffix (`K.meta`, `K.ready`), the table
 * `A` of its arguments by name (`A.lease`, `A.token`) and the call's table `C` the modules are
 * handed (`C.K`, `C.A`). A key's or an argument's position is said once, here; scripts and modules
 * only name them (the slots repeated per item, `each`, through `each.item(C, i)`: see items()).
 */
export function body(op: Shape, source: string = readFileSync(op.file ?? path.join(LUA_DIR, `${op.name}.lua`), 'utf8'), modules: string[] = []): string {
  const code = withIncludes(source, new Set(), modules);
  const { keys, args, each } = op;
  const named = keys.map((suffix, i) => `${suffix} = KEYS[${i + 1}]`).join(', ');
  const argued = args.length > 0 ? ` local A = { ${args.map((arg, i) => `${arg} = ARGV[${i + 1}]`).join(', ')} }` : '';
  // C: the call, which the library's modules are handed (isModule); K and A, as the body reads them.
  const call = ` local C = { K = K${args.length > 0 ? ', A = A' : ''}${items(args.length, each?.length)} }`;
  return `local K = { ${named} }${argued}${call}${each?.length ? ' local ITEMS = each.count(C)' : ''}\n${code.slice(code.indexOf('\n') + 1)}`;
}

/**
 * The slots repeated per item after the named arguments (`each`, e.g. put's id, payload, options
 * and after per task), as C carries them for lua/include/each.lua: `ITEMS`, how many items the
 * call carries (each.count), and each.item(C, i), the slots of item i in the op's order, so no
 * script reads ARGV by its position, and no call defines a function to read them.
 */
function items(named: number, stride: number | undefined): string {
  if (!stride) return '';
  return `, V = ARGV, named = ${named}, stride = ${stride}`;
}

/**
 * Inlines each `-- include: <name>` line with lua/include/<name>.lua: Lua code that several
 * scripts share. An include may include others, which are inlined where it says so, before its
 * own code (a Lua local must be declared before the code that uses it); each is inlined once,
 * where it is first named. An include that is a module (isModule) is not inlined: it is defined
 * once at the library's top level, and its name goes to `modules` (after the modules it needs).
 */
export function withIncludes(source: string, seen: Set<string> = new Set(), modules: string[] = []): string {
  return source.replace(INCLUDE_LINE, (_, names: string) =>
    names
      .split(/,\s*/)
      .map((name) => {
        if (isModule(name)) {
          addModule(name, modules);
          return `-- (include: ${name}, a module of the library)`;
        }
        if (seen.has(name)) return `-- (include: ${name}, above)`;
        seen.add(name);
        return withIncludes(includeSource(name), seen, modules);
      })
      .join('\n'),
  );
}

/** A line that names includes: `-- include: <name>`, or several, `-- include: <name>, <name>`. */
const INCLUDE_LINE = /^-- include: (\w+(?:, \w+)*)$/gm;

/** The includes a Lua file's include lines name, in order. */
export function includesOf(source: string): string[] {
  return [...source.matchAll(INCLUDE_LINE)].flatMap((m) => m[1].split(', '));
}

/**
 * Whether include `name` is a module of the library: its code opens with `local <name> = {}` and
 * defines its functions as fields of that table (`function <name>.f(C, ...)`), each taking what it
 * uses as parameters (the call's table C: keys C.K, arguments C.A, clock C.now and the call's own
 * state). Such code holds nothing of a call, so the library defines it once, not on every call.
 */
export function isModule(name: string): boolean {
  return new RegExp(`^local ${name} = \\{\\}$`, 'm').test(includeSource(name));
}

/** Adds module `name` to `modules`, after the modules it includes (each must be a module too). */
function addModule(name: string, modules: string[]): void {
  if (modules.includes(name)) return;
  for (const dep of includesOf(includeSource(name))) {
    if (!isModule(dep)) throw new Error(`lua/include/${name}.lua is a module of the library, so it may include only modules; ${dep} is not one`);
    addModule(dep, modules);
  }
  if (!modules.includes(name)) modules.push(name);
}

/**
 * The code of modules `names` as the library's top level defines them: each table declared, its
 * code in a block of its own, so that a module's private locals stay its own (and the library's
 * chunk stays within Lua's 200 locals).
 */
export function moduleCode(names: readonly string[]): string {
  return names
    .map((name) => {
      const source = includeSource(name).replace(INCLUDE_LINE, '-- (include: $1: modules above)');
      return `local ${name} = {}\ndo\n${source.replace(new RegExp(`^local ${name} = \\{\\}$`, 'm'), '')}\nend`;
    })
    .join('\n');
}

const sources = new Map<string, string>();
/** lua/include/<name>.lua, read once. */
function includeSource(name: string): string {
  let source = sources.get(name);
  if (source === undefined) sources.set(name, (source = readFileSync(path.join(LUA_DIR, 'include', `${name}.lua`), 'utf8')));
  return source;
}

/** What a script's header says of how it is called (its format: docs/design.md#scripts). */
export interface Header {
  flags: ScriptFlags;
  keys: string[];
  args: string[];
  each: string[];
}

/**
 * Reads the `#!lua` line and the `--[[ ... ]]` header of script `op`: its flags, its KEYS (one
 * list of suffixes, up to the first ARGV or Returns), its ARGV[n] names and its ARGV[+n] names.
 * A header out of that form throws: the library would call the script wrongly.
 */
export function readHeader(op: string, source: string): Header {
  const [shebang, ...rest] = source.split('\n');
  const flags = /^#!lua(?: flags=([\w-]+))?$/.exec(shebang ?? '');
  const text = /^--\[\[([\s\S]*?)\]\]/.exec(rest.join('\n'))?.[1];
  if (!flags || text === undefined) throw new Error(`lua/${op}.lua: no #!lua line and --[[ ... ]] header at the top`);
  const listed = /^\s*KEYS \(as K\.<name>[^)]*\):([\s\S]*?)(?=^\s*(?:ARGV|Returns))/m.exec(text);
  const numbered = (re: RegExp) =>
    [...text.matchAll(re)].map((m, i) => {
      if (Number(m[1]) !== i + 1) throw new Error(`lua/${op}.lua: ARGV slot ${m[1]} out of order`);
      return m[2];
    });
  return {
    flags: (flags[1] ?? '') as ScriptFlags,
    keys: listed ? listed[1].split(/[\s,]+/).filter(Boolean) : [],
    args: numbered(/^\s*ARGV\[(\d+)\]\s+(\w+)/gm),
    each: numbered(/^\s*ARGV\[\+(\d+)\]\s+(\w+)/gm),
  };
}
