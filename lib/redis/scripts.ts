/**
 * The registry of docket's Lua scripts, one file per atomic operation in lua/. Each entry lists
 * the keys and arguments in the order the script's header documents them; a test checks the
 * headers against this registry, so the two cannot drift apart.
 *
 * Scripts are called by EVALSHA and fall back to EVAL on NOSCRIPT, so a Redis restart or a
 * SCRIPT FLUSH never reaches the caller.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { CODECS, type Codec, type InputOf, type OutputOf } from './codecs';
import type { Connection } from './connection';
import { isTransient } from '../domain/errors';
import { READY_LEVELS, SUFFIXES, type QueueKeys, type Suffix } from '../domain/keys';

/**
 * Script flags (Redis 7's `#!lua flags=...` first line). Which script has which is the `flags` of
 * its entry in SCRIPTS below (a test checks each against the script's first line); this comment
 * gives the rule, not the list, so that it cannot drift from them.
 * - `''` (deny-oom): a Redis over its memory limit refuses the script before it runs, so it writes
 *   nothing. For scripts that add or move tasks, or change a schedule, such as put and reschedule.
 * - `'allow-oom'`: the script runs whatever the memory. For scripts that work or shrink a queue
 *   (claim, fail, purge, ...), so workers can still drain a full Redis, which frees memory; for
 *   those that let parked tasks go (limit, cap); and for pause, so an operator can stop a queue.
 * - `'no-writes'`: the script only reads, such as get and stats.
 */
export type ScriptFlags = '' | 'allow-oom' | 'no-writes';

export interface ScriptSpec {
  /** The flags on the script's `#!lua` line. */
  readonly flags: ScriptFlags;
  /** KEYS, in order, as queue key suffixes. */
  readonly keys: readonly Suffix[];
  /** ARGV, in order. */
  readonly args: readonly string[];
  /** ARGV slots repeated once per item after `args` (put takes many tasks per call). */
  readonly each?: readonly string[];
}

/** The keys of the priority levels and the fair groups, which every script that queues or takes ready tasks needs. */
const LEVEL_KEYS = ['levels', ...READY_LEVELS, 'grouped', 'gtags', 'parked', 'gactive', 'glimits'] as const;
/** The keys of dependencies (lua/include/deps.lua), which every script that adds or finishes tasks needs. */
const DEPS_KEYS = ['blocked', 'after', 'dependents', 'deplist', 'settle', 'outbox'] as const;

export const SCRIPTS = {
  put: {
    flags: '',
    keys: [
      'tasks',
      'delayed',
      'ready',
      'dead',
      'counts',
      'wake',
      'occurred',
      'schedules',
      ...LEVEL_KEYS,
      'events',
      'progress',
      'windows',
      'waiting',
      'results',
      'kept',
      ...DEPS_KEYS,
      'logs',
      'moved',
    ],
    args: ['count', 'maxAttempts', 'schedule', 'events'],
    each: ['id', 'payload', 'options', 'after'],
  },
  claim: {
    flags: 'allow-oom',
    keys: [
      'delayed',
      'ready',
      'active',
      'tasks',
      'dead',
      'counts',
      'wake',
      'held',
      'acked',
      ...LEVEL_KEYS,
      'paused',
      'events',
      'results',
      'kept',
      'progress',
      'waiting',
      'limits',
      'rates',
      'gheld',
      ...DEPS_KEYS,
      'logs',
      'moved',
    ],
    args: ['count', 'lease', 'token', 'worker', 'deadMaxCount', 'deadMaxAge', 'remember', 'events', 'keep', 'acks'],
    each: ['id', 'ackToken', 'result'],
  },
  extend: { flags: 'allow-oom', keys: ['active', 'tasks'], args: ['id', 'token', 'by'] },
  fail: {
    flags: 'allow-oom',
    keys: ['active', 'delayed', 'ready', 'tasks', 'dead', 'counts', 'wake', 'held', ...LEVEL_KEYS, 'events', 'results', 'kept', 'progress', 'waiting', 'limits', ...DEPS_KEYS, 'logs'],
    args: ['id', 'token', 'retryIn', 'error', 'maxAttempts', 'events'],
  },
  release: { flags: 'allow-oom', keys: ['active', 'ready', 'tasks', 'held', 'wake', ...LEVEL_KEYS], args: ['id', 'token'] },
  beat: { flags: 'allow-oom', keys: ['workers', 'held', 'active', 'wake'], args: ['worker', 'ttl'] },
  reschedule: { flags: '', keys: ['delayed', 'ready', 'active', 'tasks', 'dead', 'wake', ...LEVEL_KEYS, 'moved'], args: ['id', 'at'] },
  priority: { flags: '', keys: ['delayed', 'ready', 'active', 'tasks', 'dead', ...LEVEL_KEYS, 'moved'], args: ['id', 'level'] },
  cancel: {
    flags: 'allow-oom',
    keys: ['delayed', 'ready', 'active', 'tasks', 'dead', ...LEVEL_KEYS, 'events', 'results', 'kept', 'progress', 'waiting', 'counts', 'wake', ...DEPS_KEYS, 'logs', 'moved'],
    args: ['id', 'events'],
  },
  apply: {
    flags: 'allow-oom',
    keys: ['tasks', 'delayed', 'ready', 'dead', 'counts', 'wake', ...LEVEL_KEYS, 'events', 'results', 'kept', 'progress', 'waiting', ...DEPS_KEYS, 'logs'],
    args: ['events'],
    each: ['step'],
  },
  outbox: { flags: 'allow-oom', keys: ['outbox'], args: ['lease', 'most'], each: ['step'] },
  get: { flags: 'no-writes', keys: ['tasks', 'delayed', 'active', 'dead', 'progress', 'blocked'], args: ['id'] },
  result: { flags: 'no-writes', keys: ['tasks', 'delayed', 'active', 'dead', 'results', 'progress', 'events'], args: ['id', 'stream'] },
  progress: { flags: 'allow-oom', keys: ['active', 'tasks', 'progress', 'events'], args: ['id', 'token', 'value', 'events'] },
  log: { flags: 'allow-oom', keys: ['active', 'tasks', 'logs'], args: ['id', 'token', 'maxLines', 'maxBytes'], each: ['line'] },
  logs: { flags: 'no-writes', keys: ['logs'], args: ['id'] },
  list: {
    flags: 'no-writes',
    keys: ['delayed', 'ready', 'active', 'dead', 'tasks', ...LEVEL_KEYS, 'progress', 'blocked', 'after', 'moved'],
    args: ['state', 'offset', 'limit', 'preview'],
  },
  redrive: { flags: '', keys: ['dead', 'ready', 'tasks', 'wake', ...LEVEL_KEYS, 'active'], args: ['id', 'limit'] },
  purge: { flags: 'allow-oom', keys: ['dead', 'tasks', 'progress', 'deplist', 'logs'], args: ['limit'] },
  stats: { flags: 'no-writes', keys: ['ready', 'delayed', 'active', 'dead', 'counts', ...LEVEL_KEYS, 'paused', 'blocked', 'moved'], args: [] },
  unschedule: { flags: '', keys: ['schedules', 'occurred'], args: ['name'] },
  pause: { flags: 'allow-oom', keys: ['paused', 'wake'], args: ['paused'] },
  access: { flags: 'no-writes', keys: ['tasks'], args: [], each: ['line'] },
  cap: { flags: 'allow-oom', keys: ['limits', 'wake', 'gheld'], args: ['count'], each: ['name', 'value'] },
  limit: { flags: 'allow-oom', keys: ['ready', 'wake', ...LEVEL_KEYS], args: ['group', 'limit', 'from', 'batch'] },
  clean: {
    flags: 'allow-oom',
    keys: ['delayed', 'ready', 'tasks', 'dead', ...LEVEL_KEYS, 'events', 'results', 'kept', 'progress', 'waiting', 'counts', 'wake', ...DEPS_KEYS, 'logs', 'moved'],
    args: ['source', 'before', 'most', 'scan', 'cursor', 'events'],
  },
  obliterate: { flags: 'allow-oom', keys: SUFFIXES, args: ['force'] },
  migrate: { flags: 'allow-oom', keys: ['data', 'meta', 'tasks'], args: ['limit', 'cursor'] },
} as const satisfies Record<string, ScriptSpec>;

export type ScriptName = keyof typeof SCRIPTS;

/**
 * Each registered script's codec (lib/codecs): its input encoded as ARGV, its reply decoded. The
 * type says that every script has exactly one, and no codec is left without a script.
 */
const SCRIPT_CODECS: { readonly [N in ScriptName]: (typeof CODECS)[N] } & Record<Exclude<keyof typeof CODECS, ScriptName>, never> = CODECS;

/** What `run(name, ...)` takes for the script's ARGV. */
export type ScriptInput<N extends ScriptName> = InputOf<N>;
/** What `run(name, ...)` resolves to: the script's reply, decoded. */
export type ScriptOutput<N extends ScriptName> = OutputOf<N>;

/**
 * Another way to send a script call than the scheduler's connection: the idle wait's blocking one
 * (idle.ts), whose claim waits behind a BLPOP. It settles within a deadline of its own and rejects
 * with DocketErrors, as Connection.send does.
 */
export type Via = (args: string[]) => Promise<unknown>;

/** Where the Lua files live: next to lib/ under jest, next to dist/ once installed. */
export const LUA_DIR = path.join(__dirname, '..', '..', 'lua');

interface Loaded {
  source: string;
  sha: string;
}

/** Pause between tries while Redis answers LOADING or BUSY. */
const TRANSIENT_RETRY_MS = 50;

/** Runs registered scripts over one connection, each call within `timeoutMs`. */
export class Scripts {
  private readonly loaded = new Map<ScriptName, Loaded>();

  constructor(
    private readonly conn: Connection,
    private readonly timeoutMs: number,
  ) {
    for (const name of Object.keys(SCRIPTS) as ScriptName[]) this.loaded.set(name, load(compile(name)));
  }

  /**
   * Calls `name` with the queue's keys in registry order and `input` encoded as ARGV by the
   * script's codec, and resolves to its reply decoded by the same codec (a reply of another shape
   * is a ReplyError). NOSCRIPT, LOADING and BUSY never reach the caller: the call is retried until
   * it succeeds or its deadline passes. `what` names the operation in errors, when one script
   * serves several (claim also acks). `via` sends it some other way (see Via).
   */
  async run<N extends ScriptName>(name: N, keys: QueueKeys, input: ScriptInput<N>, what: string = name, via?: Via): Promise<ScriptOutput<N>> {
    const codec = SCRIPT_CODECS[name] as Codec<ScriptInput<N>, ScriptOutput<N>>;
    return codec.decode(await this.call(name, keys, codec.encode(input), what, via), input);
  }

  private async call(name: ScriptName, keys: QueueKeys, args: Array<string | number>, what: string, via?: Via): Promise<unknown> {
    const names = SCRIPTS[name].keys.map((suffix) => keys[suffix]);
    const tail = [String(names.length), ...names];
    for (const arg of args) tail.push(String(arg));
    const end = performance.now() + this.timeoutMs;
    for (;;) {
      const script = this.loaded.get(name)!;
      const deadline = { ms: Math.max(1, Math.round(end - performance.now())), what };
      const send = (command: string[]) => (via ? via(command) : this.conn.send(names[0], command, deadline));
      try {
        try {
          return await send(['EVALSHA', script.sha, ...tail]);
        } catch (err) {
          // The server lost its script cache (restart, failover, SCRIPT FLUSH): EVAL loads it again.
          if (!hasReply(err, /^NOSCRIPT/)) throw err;
          return await send(['EVAL', script.source, ...tail]);
        }
      } catch (err) {
        if (hasReply(err, /compiling script.*'#'/) && script.source.startsWith('#!')) {
          // Redis before 7.0 knows no shebang (and so no script flags): run without it.
          this.loaded.set(name, load(script.source.slice(script.source.indexOf('\n') + 1)));
          continue;
        }
        if (!isTransient(err) || performance.now() + TRANSIENT_RETRY_MS >= end) throw err;
        await new Promise((resolve) => setTimeout(resolve, TRANSIENT_RETRY_MS));
      }
    }
  }
}

/**
 * The source Redis runs for `name`: lua/<name>.lua with its includes inlined (`inlined`) and, on
 * the line after the `#!lua` one, the table `K` of its keys by suffix (`K.meta`, `K.ready`) and the
 * table `A` of its arguments by name (`A.lease`, `A.token`), both built from the registry entry. A
 * key's or an argument's position is said once, here; scripts and includes only name them (the
 * slots repeated per item, `each`, through `item(i)`: see items()). (One line, so
 * Redis's line numbers in errors are off by one.) A table, not one local per key: a claim paid
 * about 1 µs for the table and 5 µs for locals, since every function the script defines would
 * capture each key it uses as an upvalue of its own on every call.
 */
export function compile(name: ScriptName): string {
  const source = inlined(name);
  const { keys, args, each }: ScriptSpec = SCRIPTS[name];
  const named = keys.map((suffix, i) => `${suffix} = KEYS[${i + 1}]`).join(', ');
  const argued = args.length > 0 ? ` local A = { ${args.map((arg, i) => `${arg} = ARGV[${i + 1}]`).join(', ')} }` : '';
  const cut = source.indexOf('\n') + 1;
  return `${source.slice(0, cut)}local K = { ${named} }${argued}${items(args.length, each?.length)}\n${source.slice(cut)}`;
}

/**
 * The slots repeated per item after the named arguments (`each`, e.g. put's id, payload, options
 * and after per task): `ITEMS`, how many items the call carries, and `item(i)`, the slots of item
 * i in their registry order, so no script reads ARGV by its position.
 */
function items(named: number, stride: number | undefined): string {
  if (!stride) return '';
  const slots = Array.from({ length: stride }, (_, k) => `ARGV[at + ${k + 1}]`).join(', ');
  return ` local ITEMS = (#ARGV - ${named}) / ${stride} local function item(i) local at = ${named} + ${stride} * (i - 1) return ${slots} end`;
}

/** lua/<name>.lua with its includes inlined, before compile() names its keys. */
export function inlined(name: ScriptName): string {
  return withIncludes(readFileSync(path.join(LUA_DIR, `${name}.lua`), 'utf8'));
}

/**
 * Inlines each `-- include: <name>` line with lua/include/<name>.lua: Lua code that several
 * scripts share (EVAL takes one self-contained script, so sharing happens here). An include may
 * include others, which are inlined where it says so, before its own code (a Lua local must be
 * declared before the code that uses it); each is inlined once, where it is first named.
 */
export function withIncludes(source: string, seen: Set<string> = new Set()): string {
  return source.replace(/^-- include: (\w+)$/gm, (_, name: string) => {
    if (seen.has(name)) return `-- (include: ${name}, above)`;
    seen.add(name);
    return withIncludes(readFileSync(path.join(LUA_DIR, 'include', `${name}.lua`), 'utf8'), seen);
  });
}

function load(source: string): Loaded {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Whether `err` carries a Redis reply whose message matches `pattern`. */
function hasReply(err: unknown, pattern: RegExp): boolean {
  const raw = (err as { cause?: unknown }).cause;
  return raw instanceof Error && pattern.test(raw.message);
}
