/**
 * The script runner: Scripts.run(op, keys, input) calls one operation (lib/ops/<name>.ts, whose
 * script is lua/<name>.lua) with the queue's keys in the op's order and its input encoded by the
 * op's codec, and decodes the reply by the same codec. It holds no list of scripts: each is
 * compiled, and its SHA-1 computed, on its first call.
 *
 * Scripts are called by EVALSHA and fall back to EVAL on NOSCRIPT, so a Redis restart or a
 * SCRIPT FLUSH never reaches the caller.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import type { Connection } from './connection';
import type { Op, ScriptSpec } from './op';
import { isTransient } from '../domain/errors';
import type { QueueKeys } from '../domain/keys';

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

/** Runs ops over one connection, each call within `timeoutMs`. */
export class Scripts {
  /** Each op's source as sent and its SHA-1, by op name, from its first call on. */
  private readonly loaded = new Map<string, Loaded>();
  /** Ops the server answered a call of (EVALSHA or EVAL) since their last NOSCRIPT: their script is in its cache. */
  private readonly cached = new Set<string>();

  constructor(
    private readonly conn: Connection,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Calls `op` with the queue's keys in the op's order and `input` encoded as ARGV by its codec,
   * and resolves to its reply decoded by the same codec (a reply of another shape is a
   * ReplyError). NOSCRIPT, LOADING and BUSY never reach the caller: the call is retried until it
   * succeeds or its deadline passes. `what` names the operation in errors, when one script serves
   * several (claim also acks). `via` sends it some other way (see Via).
   */
  async run<I, O>(op: Op<I, O>, keys: QueueKeys, input: NoInfer<I>, what: string = op.name, via?: Via): Promise<O> {
    return op.decode(await this.call(op, keys, op.encode(input), what, via), input);
  }

  /**
   * Whether a call of `op` has been answered since its last NOSCRIPT, so the server most likely
   * has its script (a restart or SCRIPT FLUSH since then is only seen at the next call). Calls
   * that must run in the order sent wait for the first one's answer while this is false: a
   * NOSCRIPT retry would run after the calls sent behind it (put.ts's chunks).
   */
  isCached(op: ScriptSpec): boolean {
    return this.cached.has(op.name);
  }

  /** The op's compiled source and SHA-1: read and hashed once, on its first call. */
  private compiled(op: ScriptSpec): Loaded {
    let script = this.loaded.get(op.name);
    if (!script) this.loaded.set(op.name, (script = load(compile(op))));
    return script;
  }

  private async call(op: ScriptSpec, keys: QueueKeys, args: Array<string | number>, what: string, via?: Via): Promise<unknown> {
    const names = op.keys.map((suffix) => keys[suffix]);
    const tail = [String(names.length), ...names];
    for (const arg of args) tail.push(String(arg));
    const end = performance.now() + this.timeoutMs;
    for (;;) {
      const script = this.compiled(op);
      const deadline = { ms: Math.max(1, Math.round(end - performance.now())), what };
      const send = (command: string[]) => (via ? via(command) : this.conn.send(names[0], command, deadline));
      try {
        try {
          const reply = await send(['EVALSHA', script.sha, ...tail]);
          this.cached.add(op.name);
          return reply;
        } catch (err) {
          // The server lost its script cache (restart, failover, SCRIPT FLUSH): EVAL loads it again.
          if (!hasReply(err, /^NOSCRIPT/)) throw err;
          this.cached.delete(op.name);
          const reply = await send(['EVAL', script.source, ...tail]);
          this.cached.add(op.name);
          return reply;
        }
      } catch (err) {
        if (hasReply(err, /compiling script.*'#'/) && script.source.startsWith('#!')) {
          // Redis before 7.0 knows no shebang (and so no script flags): run without it.
          this.loaded.set(op.name, load(script.source.slice(script.source.indexOf('\n') + 1)));
          continue;
        }
        if (!isTransient(err) || performance.now() + TRANSIENT_RETRY_MS >= end) throw err;
        await new Promise((resolve) => setTimeout(resolve, TRANSIENT_RETRY_MS));
      }
    }
  }
}

/**
 * The source Redis runs for `op`: its Lua file with its includes inlined (`inlined`) and, on the
 * line after the `#!lua` one, the table `K` of its keys by suffix (`K.meta`, `K.ready`) and the
 * table `A` of its arguments by name (`A.lease`, `A.token`), both built from the op. A key's or an
 * argument's position is said once, here; scripts and includes only name them (the slots repeated
 * per item, `each`, through `item(i)`: see items()). (One line, so Redis's line numbers in errors
 * are off by one.) A table, not one local per key: a claim paid about 1 µs for the table and 5 µs
 * for locals, since every function the script defines would capture each key it uses as an upvalue
 * of its own on every call.
 */
export function compile(op: ScriptSpec): string {
  const source = inlined(op);
  const { keys, args, each } = op;
  const named = keys.map((suffix, i) => `${suffix} = KEYS[${i + 1}]`).join(', ');
  const argued = args.length > 0 ? ` local A = { ${args.map((arg, i) => `${arg} = ARGV[${i + 1}]`).join(', ')} }` : '';
  const cut = source.indexOf('\n') + 1;
  return `${source.slice(0, cut)}local K = { ${named} }${argued}${items(args.length, each?.length)}\n${source.slice(cut)}`;
}

/**
 * The slots repeated per item after the named arguments (`each`, e.g. put's id, payload, options
 * and after per task): `ITEMS`, how many items the call carries, and `item(i)`, the slots of item
 * i in the op's order, so no script reads ARGV by its position.
 */
function items(named: number, stride: number | undefined): string {
  if (!stride) return '';
  const slots = Array.from({ length: stride }, (_, k) => `ARGV[at + ${k + 1}]`).join(', ');
  return ` local ITEMS = (#ARGV - ${named}) / ${stride} local function item(i) local at = ${named} + ${stride} * (i - 1) return ${slots} end`;
}

/** The op's Lua file (lua/<name>.lua, or its own `file`) with its includes inlined, before compile() names its keys. */
export function inlined(op: Pick<ScriptSpec, 'name' | 'file'>): string {
  return withIncludes(readFileSync(op.file ?? path.join(LUA_DIR, `${op.name}.lua`), 'utf8'));
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
