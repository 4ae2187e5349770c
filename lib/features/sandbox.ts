/**
 * Sandboxed handlers: `work('./handler.js', { sandbox: true })` runs the handler module in worker
 * threads (a pool that grows to the worker's concurrency and is reused across tasks), while the
 * main thread keeps claiming, extending leases, beating and acking. So a handler that blocks its
 * loop with CPU work cannot make its worker look gone, and one that crashes its thread fails only
 * its own attempt. Threads rather than child processes: about 20 ms and 9 MB to start one against
 * 60–80 ms and 40 MB, for the same 40–80 µs per task (docs/design.md).
 *
 * A thread runs one task at a time. One that exits (process.exit, an uncaught exception) fails its
 * attempt and is dropped; the next task starts a new one. Once a run's signal is aborted (run
 * timeout, lost lease, close), the abort is passed on, and a thread that has not returned within
 * ABORT_GRACE_MS is terminated: its slot frees only then, so threads never outnumber concurrency.
 *
 * Every attempt settles, whatever its handler sends: a result or progress value is checked in the
 * thread (sandbox-thread.ts) and crosses as JSON text, and a message the main thread still cannot
 * read (a log line nested 5,000 deep: the thread's stack is larger than this one's) fails the run
 * with a ValidationError and replaces its thread, instead of leaving the run waiting for ever.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker as Thread } from 'node:worker_threads';
import { SandboxExitError, ValidationError } from '../types/errors';
import { errorOf, rethrown, shapeOf, thrownOf, type FromThread, type ThreadData, type ToThread } from './sandbox-thread';
import type { Task } from '../types/task';
import type { Handler } from '../types/work';

/** How long an aborted run's thread may take to return before it is terminated. */
export const ABORT_GRACE_MS = 1000;

/** The task methods a handler in a thread may call (each one the task has), run on the main thread. */
const METHODS = ['progress', 'log', 'dependencies', 'snooze'];

/** The thread entry's code, when it has to be compiled first (see entry()). */
let compiled: string | undefined;

/** The modules a thread loads, by path from lib/: its entry, and what the entry imports of docket (nothing else). */
const THREAD_MODULES = ['features/sandbox-thread', 'domain/payload', 'types/errors', 'types/time'];

/**
 * What a thread runs: the entry next to this module. Compiled (dist/) it is a .js file. Under
 * ts-node or jest it is the .ts sources of THREAD_MODULES, transpiled here once into one script
 * with a require() of their own (node: modules go to Node's) and run as eval code: a thread then
 * starts in about 20 ms, against about 200 ms for loading ts-node's register hook into each thread.
 */
function entry(): { code: string; eval: boolean } {
  const ext = path.extname(__filename);
  if (ext !== '.ts') return { code: path.join(__dirname, `sandbox-thread${ext}`), eval: false };
  if (compiled === undefined) {
    // Only reached where TypeScript is installed: a .ts module of docket is being run from source.
    const ts = require('typescript') as typeof import('typescript');
    const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 };
    const modules = THREAD_MODULES.map((name) => {
      const file = path.join(__dirname, '..', `${name}.ts`);
      const js = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: options, fileName: file }).outputText;
      return `${JSON.stringify(name)}: (exports, require) => {\n${js}\n}`;
    });
    // A module's relative require is resolved from its own folder (`../types/errors` from
    // features/sandbox-thread is types/errors), the way Node would resolve it on disk.
    compiled = [
      `const modules = {${modules.join(',\n')}};`,
      'const loaded = {};',
      'function resolve(from, spec) {',
      "  const parts = from.split('/').slice(0, -1);",
      "  for (const part of spec.split('/')) part === '..' ? parts.pop() : part !== '.' && parts.push(part);",
      "  return parts.join('/');",
      '}',
      'function load(name) {',
      '  if (!(name in loaded)) modules[name]((loaded[name] = {}), (spec) => (spec.startsWith(".") ? load(resolve(name, spec)) : require(spec)));',
      '  return loaded[name];',
      '}',
      `load(${JSON.stringify(THREAD_MODULES[0])});`,
    ].join('\n');
  }
  return { code: compiled, eval: true };
}

/**
 * The sandbox of `work(handler, options)`, or null without `sandbox: true`. Checked at once, so
 * work() throws a ValidationError synchronously: the handler must be a path (relative to the
 * working directory) or a file URL of a module that exists. `maxResultBytes` (the scheduler's) is
 * what its threads check results and progress values against.
 */
export function sandboxOf(handler: unknown, options: unknown, maxResultBytes: number): Sandbox | null {
  const sandbox = (options as { sandbox?: unknown } | undefined)?.sandbox;
  if (sandbox !== undefined && typeof sandbox !== 'boolean') throw new ValidationError('options.sandbox', 'expected a boolean');
  const isModule = typeof handler === 'string' || handler instanceof URL;
  if (!sandbox) {
    if (isModule) throw new ValidationError('handler', 'a handler module (a path or file URL) runs only with sandbox: true');
    return null;
  }
  if (!isModule) throw new ValidationError('handler', 'with sandbox: true, expected the path or file URL of a handler module');
  let file: string;
  try {
    file = handler instanceof URL || handler.startsWith('file:') ? fileURLToPath(handler) : path.resolve(handler);
  } catch {
    throw new ValidationError('handler', `expected a file path or a file: URL, not ${String(handler)}`);
  }
  if (!existsSync(file)) throw new ValidationError('handler', `no such file: ${file}`);
  return new Sandbox({ docketSandbox: pathToFileURL(file).href, maxResultBytes });
}

interface Slot {
  thread: Thread;
  /** The run under way, if any. */
  run: Running | null;
  /** Why the thread died: its uncaught error, if it had one. */
  crash?: unknown;
  /** Terminated by the sandbox (an aborted run past its grace, or close()), not exited by itself. */
  killed?: boolean;
}

interface Running {
  id: number;
  task: Task<unknown>;
  settle(outcome: { value: unknown } | { error: unknown }): void;
}

export class Sandbox {
  private readonly idle: Slot[] = [];
  private readonly all = new Set<Slot>();
  private closing = false;
  private runs = 0;
  /** What work() runs for each task. */
  readonly handler: Handler<unknown> = (task, signal) => this.run(task, signal) as ReturnType<Handler<unknown>>;

  constructor(private readonly data: ThreadData) {}

  /** close() has begun: idle threads go now, busy ones as soon as their run ends. */
  shrink(): void {
    this.closing = true;
    for (const slot of this.idle.splice(0)) void this.kill(slot);
  }

  /** Terminates every thread left (after close() waited for the runs it waits for). */
  async close(): Promise<void> {
    this.shrink();
    await Promise.all([...this.all].map((slot) => this.kill(slot)));
  }

  private kill(slot: Slot): Promise<number> {
    slot.killed = true;
    return slot.thread.terminate();
  }

  private run(task: Task<unknown>, signal: AbortSignal): Promise<unknown> {
    let fields: Record<string, unknown>;
    try {
      // Read before a thread is taken: a payload this scheduler cannot decrypt throws on reading
      // (lease.ts), and the attempt fails with that error, holding no thread.
      fields = fieldsOf(task);
    } catch (err) {
      return Promise.reject(err);
    }
    const slot = this.idle.pop() ?? this.spawn();
    const id = ++this.runs;
    return new Promise((resolve, reject) => {
      let grace: NodeJS.Timeout | undefined;
      const onAbort = () => {
        slot.thread.postMessage({ type: 'abort', id, reason: shapeOf(reasonOf(signal)) } satisfies ToThread);
        // Busy in a loop, or ignoring its signal: terminated; its exit ends the run with the reason.
        grace = setTimeout(() => this.kill(slot), ABORT_GRACE_MS);
      };
      slot.run = {
        id,
        task,
        settle: (outcome) => {
          clearTimeout(grace);
          signal.removeEventListener('abort', onAbort);
          slot.run = null;
          if ('value' in outcome) resolve(outcome.value);
          // undefined: the sandbox terminated the thread, after an abort (or by close(), an abandoned run).
          else reject(outcome.error === undefined ? (signal.aborted ? reasonOf(signal) : new SandboxExitError(task.hash, 1)) : outcome.error);
        },
      };
      const methods = METHODS.filter((m) => typeof (task as unknown as Record<string, unknown>)[m] === 'function');
      slot.thread.postMessage({ type: 'run', id, task: fields, methods } satisfies ToThread);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private spawn(): Slot {
    const { code, eval: isCode } = entry();
    const thread = new Thread(code, { eval: isCode, workerData: this.data });
    const slot: Slot = { thread, run: null };
    this.all.add(slot);
    // Nothing of the sandbox keeps the process alive: the worker's own loop and timers do.
    thread.unref();
    thread.on('message', (message: FromThread) => this.receive(slot, message));
    thread.on('messageerror', (err) => this.unreadable(slot, err));
    thread.on('error', (err) => (slot.crash = err));
    thread.on('exit', (code) => {
      this.all.delete(slot);
      const at = this.idle.indexOf(slot);
      if (at >= 0) this.idle.splice(at, 1);
      const run = slot.run;
      if (!run) return;
      // Terminated after an abort: the run ends with the signal's reason (settle reads it).
      run.settle({ error: slot.crash ?? (slot.killed ? undefined : new SandboxExitError(run.task.hash, code)) });
    });
    return slot;
  }

  private receive(slot: Slot, message: FromThread): void {
    const run = slot.run;
    if (!run || run.id !== message.id) return;
    if (message.type === 'call') return void this.call(slot, run, message);
    // JSON text, checked in the thread: parsed here, in this realm, an own "__proto__" key included.
    run.settle(message.ok ? { value: message.json === undefined ? undefined : JSON.parse(message.json) } : { error: rethrown(message.thrown) });
    if (this.closing) void this.kill(slot);
    else this.idle.push(slot);
  }

  /**
   * A message of the thread that could not be read here: a value a handler passed on that this
   * thread's smaller stack cannot rebuild (a log line nested 5,000 deep). Which message it was is
   * lost with it, so the run under way fails with a ValidationError, and its thread, which may
   * wait for an answer that will never come, is replaced.
   */
  private unreadable(slot: Slot, err: Error): void {
    const run = slot.run;
    if (!run) return;
    run.settle({ error: new ValidationError('value', `sent by the handler's thread could not be read on the main thread (${err.message})`, 'ERR_VALIDATION', { cause: err }) });
    void this.kill(slot);
  }

  /** A task method called in the thread (progress, log, dependencies), run here and answered. */
  private call(slot: Slot, run: Running, message: Extract<FromThread, { type: 'call' }>): void {
    const reply = (answer: { ok: true; value: unknown } | { ok: false; error: ReturnType<typeof thrownOf> }) => {
      if (slot.run === run) slot.thread.postMessage({ type: 'reply', id: run.id, call: message.call, ...answer } satisfies ToThread);
    };
    // progress's value comes as its JSON text, checked in the thread.
    const args = message.json === undefined ? message.args : [JSON.parse(message.json)];
    void (async () => (run.task as unknown as Record<string, (...args: unknown[]) => unknown>)[message.method](...args))().then(
      (value) => reply({ ok: true, value }),
      (err: unknown) => reply({ ok: false, error: thrownOf(err) }),
    );
  }
}

/** A task's fields as a plain object: no methods, and not its lease token (the thread never acks). */
function fieldsOf(task: Task<unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(task)) if (typeof value !== 'function' && key !== 'token') fields[key] = value;
  return fields;
}

function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : errorOf({ name: 'AbortError', message: String(reason) });
}
