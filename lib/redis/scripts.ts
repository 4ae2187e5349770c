/**
 * The script runner: Scripts.run(op, keys, input) calls one operation (lib/ops/<name>.ts, whose
 * code is lua/<name>.lua) with the queue's keys in the op's order and its input encoded by the
 * op's codec, and decodes the reply by the same codec.
 *
 * Every op is a function of one Redis Functions library (library.ts), called with FCALL (FCALL_RO
 * for a read-only op). A node that lacks the library (first use, a restart without persistence,
 * FUNCTION FLUSH, a new master) answers "Function not found": the library is loaded (FUNCTION
 * LOAD) and the call sent once more, so none of this reaches the caller.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Connection } from './connection';
import type { Op, ScriptSpec } from './op';
import { isTransient } from '../types/errors';
import type { QueueKeys } from '../domain/keys';
import { body, docketLibrary, libraryOf, LUA_DIR, moduleCode, withIncludes, type Library } from './library';

export { body, LUA_DIR, withIncludes };

/**
 * Another way to send a call than the scheduler's connection: the idle wait's blocking one
 * (idle.ts), whose claim waits behind a BLPOP. It settles within a deadline of its own and rejects
 * with DocketErrors, as Connection.send does.
 */
export type Via = (args: string[]) => Promise<unknown>;

/** Pause between tries while Redis answers LOADING or BUSY. */
const TRANSIENT_RETRY_MS = 50;

/** Runs ops over one connection, each call within `timeoutMs`. */
export class Scripts {
  /** Ops the server answered a call of since their last "Function not found": their library is loaded there. */
  private readonly cached = new Set<string>();
  /** The libraries of ops with a Lua file of their own (a test's), by file. */
  private readonly own = new Map<string, Library>();

  constructor(
    private readonly conn: Connection,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Calls `op` with the queue's keys in the op's order and `input` encoded as ARGV by its codec,
   * and resolves to its reply decoded by the same codec (a reply of another shape is a
   * ReplyError). A missing library, LOADING and BUSY never reach the caller: the call is retried
   * until it succeeds or its deadline passes. `what` names the operation in errors, when one
   * function serves several (claim also acks). `via` sends it some other way (see Via).
   */
  async run<I, O>(op: Op<I, O>, keys: QueueKeys, input: NoInfer<I>, what: string = op.name, via?: Via): Promise<O> {
    return op.decode(await this.call(op, keys, op.encode(input), what, via), input);
  }

  /**
   * Whether a call of `op` has been answered since its last "Function not found", so the server
   * most likely has the library (a restart or FUNCTION FLUSH since then is only seen at the next
   * call). Calls that must run in the order sent wait for the first one's answer while this is
   * false: a call retried after loading the library would run after the calls sent behind it
   * (put.ts's chunks).
   */
  isCached(op: ScriptSpec): boolean {
    return this.cached.has(op.name);
  }

  /**
   * Loads the library of `op` on the node that owns `firstKey`, unless it is there already:
   * createScheduler does so for its default queue, so that a server that cannot load it (too old,
   * an ACL without FUNCTION LOAD) is found before anything is written.
   */
  async load(op: ScriptSpec, firstKey: string): Promise<void> {
    await loadLibrary((command) => this.conn.send(firstKey, command, { ms: this.timeoutMs, what: 'FUNCTION LOAD' }), this.libraryFor(op));
  }

  /** The library `op` is a function of: docket's own, or one of its own Lua file. */
  private libraryFor(op: ScriptSpec): Library {
    if (!op.file) return docketLibrary();
    let library = this.own.get(op.file);
    if (!library) this.own.set(op.file, (library = libraryOf([op.file])));
    return library;
  }

  private async call(op: ScriptSpec, keys: QueueKeys, args: Array<string | number>, what: string, via?: Via): Promise<unknown> {
    const names = op.keys.map((suffix) => keys[suffix]);
    const library = this.libraryFor(op);
    const command = [op.flags === 'no-writes' ? 'FCALL_RO' : 'FCALL', library.fn(op.name), String(names.length), ...names];
    for (const arg of args) command.push(String(arg));
    const end = performance.now() + this.timeoutMs;
    for (;;) {
      const deadline = { ms: Math.max(1, Math.round(end - performance.now())), what };
      const send = (words: string[]) => (via ? via(words) : this.conn.send(names[0], words, deadline));
      try {
        try {
          const reply = await send(command);
          this.cached.add(op.name);
          return reply;
        } catch (err) {
          // The node lacks the library (first use, a restart without persistence, FUNCTION FLUSH,
          // a new master): load it, and call once more.
          if (!hasReply(err, /Function not found/i)) throw err;
          this.cached.delete(op.name);
          await loadLibrary(send, library);
          const reply = await send(command);
          this.cached.add(op.name);
          return reply;
        }
      } catch (err) {
        if (!isTransient(err) || performance.now() + TRANSIENT_RETRY_MS >= end) throw err;
        await new Promise((resolve) => setTimeout(resolve, TRANSIENT_RETRY_MS));
      }
    }
  }
}

/** FUNCTION LOAD of `library`; one that another client loaded meanwhile is as good. */
async function loadLibrary(send: Via, library: Library): Promise<void> {
  try {
    await send(['FUNCTION', 'LOAD', library.source]);
  } catch (err) {
    if (!hasReply(err, /already exists/i)) throw err;
  }
}

/**
 * `op` as one Lua chunk a script could be: its function's body (library.ts), with the code of the
 * modules it calls after the body's first line, behind a `#!lua` line with its flags. For tests and
 * benchmarks that look at or time one op's code alone; docket runs the library.
 */
export function compile(op: ScriptSpec): string {
  const modules: string[] = [];
  const code = body(op, undefined, modules);
  return `#!lua${op.flags ? ` flags=${op.flags}` : ''}\n${code.slice(0, code.indexOf('\n'))}\n${moduleCode(modules)}\n${code.slice(code.indexOf('\n') + 1)}`;
}

/**
 * The op's Lua file, its include lines marked, before body() names its keys, and then the code of
 * the library's modules it uses: all the Lua a call of it can run, for tests that read it.
 */
export function inlined(op: Pick<ScriptSpec, 'name' | 'file'>): string {
  const modules: string[] = [];
  const code = withIncludes(readFileSync(op.file ?? path.join(LUA_DIR, `${op.name}.lua`), 'utf8'), new Set(), modules);
  return `${code}\n${moduleCode(modules)}`;
}

/** Whether `err` carries a Redis reply whose message matches `pattern`. */
function hasReply(err: unknown, pattern: RegExp): boolean {
  const raw = (err as { cause?: unknown }).cause;
  return raw instanceof Error && pattern.test(raw.message);
}
