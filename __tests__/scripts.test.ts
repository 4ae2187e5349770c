/**
 * The Lua scripts: each file's KEYS/ARGV header matches the registry that calls it, and a server
 * that lost its script cache is invisible to callers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createClient } from 'redis';
import { createScheduler, OutOfMemoryError } from '../lib';
import { READY_LEVELS, SUFFIXES } from '../lib/domain/keys';
import { compile, inlined, LUA_DIR, SCRIPTS, type ScriptName } from '../lib/redis/scripts';
import { startRedis, type RedisServer } from './support/redis-server';

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

describe('Lua headers', () => {
  const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua'));

  it('has one file per registered script and no other', () => {
    expect(files.map((f) => f.replace(/\.lua$/, '')).sort()).toEqual(Object.keys(SCRIPTS).sort());
  });

  it.each(Object.keys(SCRIPTS) as ScriptName[])('%s.lua documents exactly the KEYS and ARGV the registry passes', (name) => {
    const spec = SCRIPTS[name];
    const h = header(readFileSync(path.join(LUA_DIR, `${name}.lua`), 'utf8'));
    expect(h.flags).toBe(spec.flags);
    expect(h.keys).toEqual(spec.keys);
    expect(h.args).toEqual(spec.args);
    expect(h.each).toEqual('each' in spec ? spec.each : []);
    expect(h.returns).toBe(true);
    // Keys are used by name only: K.<suffix>, which compile() builds from the registry.
    expect(h.body).not.toMatch(/KEYS\[/);
    if (!('each' in spec)) {
      const argv = [...h.body.matchAll(/ARGV\[(\d+)\]/g)].map((m) => Number(m[1]));
      expect(Math.max(0, ...argv)).toBeLessThanOrEqual(spec.args.length);
    }
  });

  it.each(Object.keys(SCRIPTS) as ScriptName[])('%s, with its includes, uses exactly the keys it is given', (name) => {
    const source = inlined(name);
    expect(source).not.toMatch(/KEYS\[/);
    const used = new Set([...source.matchAll(/\bK\.(\w+)/g)].map((m) => m[1]));
    // A level's list is chosen by number: K['ready' .. level].
    if (/K\['ready' \.\./.test(source)) for (const k of READY_LEVELS) used.add(k);
    // No other way of reaching K: every use is K.<name> or K['ready' .. level].
    expect(source.replace(/\bK\.\w+/g, '').replace(/\bK\['ready' \.\. \w+\]/g, '')).not.toMatch(/\bK\b(?!\.<name>)/);
    const given = new Set<string>(SCRIPTS[name].keys);
    expect([...used].filter((k) => !given.has(k))).toEqual([]);
    // Includes may bring functions a script never calls, so a given key need not be used; but
    // every given key is a real queue key.
    for (const k of given) expect(SUFFIXES).toContain(k);
  });

  it.each(Object.keys(SCRIPTS) as ScriptName[])('%s compiles with K and A built from the registry on one line', (name) => {
    const lines = compile(name).split('\n');
    // The line compile() adds, after the shebang, is the only place KEYS is read, and the only
    // place an argument is read by a fixed position: the code names them (K.tasks, A.token).
    const { keys, args } = SCRIPTS[name];
    const named = args.length > 0 ? ` local A = { ${args.map((a, i) => `${a} = ARGV[${i + 1}]`).join(', ')} }` : '';
    expect(lines[1].startsWith(`local K = { ${keys.map((k, i) => `${k} = KEYS[${i + 1}]`).join(', ')} }${named}`)).toBe(true);
    // Slots repeated per item are read through item(i), which hands them back in registry order.
    const each = (SCRIPTS[name] as { each?: readonly string[] }).each;
    if (each) expect(lines[1]).toMatch(new RegExp(`local function item\\(i\\) local at = ${args.length} \\+ ${each.length} \\* \\(i - 1\\) return ARGV\\[at \\+ 1\\]`));
    const code = lines
      .slice(2)
      .join('\n')
      .replace(/--\[\[[\s\S]*?\]\]/g, '')
      .replace(/--.*$/gm, '');
    expect(code).not.toMatch(/KEYS\[/);
    expect(code.match(/ARGV/g) ?? []).toEqual([]);
  });

  it('docs/design.md describes every key the scripts name', () => {
    const table = readFileSync(path.join(__dirname, '..', 'docs', 'design.md'), 'utf8');
    const rows = new Set([...table.matchAll(/^\| `(\w+)`/gm)].map((m) => m[1]));
    const missing = SUFFIXES.filter((k) => !rows.has(k) && !(READY_LEVELS as readonly string[]).includes(k));
    expect(missing).toEqual([]);
    expect(table).toMatch(/^\| `ready1` … `ready9` \|/m);
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

  it.each(Object.keys(SCRIPTS) as ScriptName[])('%s, with its includes, defines every include function it calls before the call', (name) => {
    // A Lua local is seen only by code after it: a function named before its include is inlined
    // (or never included) is a global lookup, which Redis refuses only when that line runs.
    const code = (lua: string) => lua.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--[^\n]*/g, '');
    const include = path.join(LUA_DIR, 'include');
    const shared = readdirSync(include).flatMap((f) => [...code(readFileSync(path.join(include, f), 'utf8')).matchAll(/^local function (\w+)/gm)].map((m) => m[1]));
    expect(shared).toEqual(expect.arrayContaining(['push', 'unqueue', 'pushLevel', 'pushGroup', 'refill', 'many', 'slices']));
    const source = code(inlined(name));
    // A parameter or variable of the same name (a callback called `take`) is not the include's function.
    const shadowed = new Set([...source.matchAll(/function\s*\w*\s*\(([^)]*)\)/g)].flatMap((m) => m[1].split(/\s*,\s*/)));
    for (const m of source.matchAll(/\blocal\s+(?!function)([\w\s,]+?)\s*=/g)) for (const v of m[1].split(/\s*,\s*/)) shadowed.add(v);
    const defined = new Map<string, number>();
    for (const m of source.matchAll(/\blocal function (\w+)/g)) if (!defined.has(m[1])) defined.set(m[1], m.index);
    const early = [...source.matchAll(/(?<![.:\w])(\w+)\s*\(/g)]
      .filter((m) => shared.includes(m[1]) && !shadowed.has(m[1]))
      .filter((m) => !((defined.get(m[1]) ?? Infinity) <= m.index))
      .map((m) => m[1]);
    expect([...new Set(early)]).toEqual([]);
  });

  it.each(Object.keys(SCRIPTS) as ScriptName[])('%s.lua builds no key names (cluster and ACL safety)', (name) => {
    // With its includes: a key is only ever one of K's values, never a string made from one.
    const source = inlined(name);
    expect(source).not.toMatch(/\bK\.\w+\s*\.\./);
    expect(source).not.toMatch(/\.\.\s*K\.\w/);
    expect(source).not.toMatch(/\.\.\s*K\[/);
  });
});

describe('a full Redis (maxmemory, noeviction)', () => {
  it('refuses put up front with a typed error and writes nothing, while workers still drain', async () => {
    const server = await startRedis(['--maxmemory', '4mb', '--maxmemory-policy', 'noeviction']);
    const s = await createScheduler({ url: server.url, onWarning: () => {} }); // no AOF, on purpose
    const raw = createClient({ url: server.url });
    await raw.connect();
    try {
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
      expect(stored.filter((field) => !/^\{.*\}\n\{"n":\d+,"pad":"x+"\}$/.test(field))).toEqual([]);
      // claim and ack are allow-oom: draining works and frees memory, then puts work again.
      for (let i = 0; i < 100; i++) await s.ack((await s.claim())!);
      await expect(s.put('fits again')).resolves.toMatchObject({ added: true });
    } finally {
      await s.close();
      await raw.quit();
      await server.stop();
    }
  });
});

describe('script cache loss', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('recovers from SCRIPT FLUSH without the caller seeing NOSCRIPT', async () => {
    const s = await createScheduler({ url: server.url, onWarning: () => {} }); // no AOF, on purpose
    const raw = createClient({ url: server.url });
    await raw.connect();
    try {
      await s.put('before');
      await raw.scriptFlush();
      const evalsBefore = await calls(raw, 'eval');
      await expect(s.put('after')).resolves.toMatchObject({ added: true });
      const task = await s.claim();
      await raw.scriptFlush();
      await expect(s.ack(task!)).resolves.toBe(true);
      await expect(s.stats()).resolves.toMatchObject({ ready: 1 });
      // Each call after a flush reloaded its script with EVAL.
      expect((await calls(raw, 'eval')) - evalsBefore).toBeGreaterThanOrEqual(3);
    } finally {
      await s.close();
      await raw.quit();
    }
  });
});

async function calls(raw: ReturnType<typeof createClient>, command: string): Promise<number> {
  const info = await raw.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}
