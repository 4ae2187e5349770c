/**
 * The entry of a sandbox thread (see sandbox.ts): loads the handler module once, then runs one task
 * at a time as the main thread asks. It imports nothing of docket's, so a thread starts in about
 * 20 ms, and it holds no connection: claims, leases, heartbeats and acks stay on the main thread,
 * which a handler blocking this thread's loop cannot hold up.
 *
 * Messages in (workerData: { docketSandbox: the module's file URL }): `run` (a task as a plain object, with the names of the task
 * methods the main thread offers), `abort` (the signal's reason as name and message), `reply` (the
 * answer to a task method call). Out: `call` (a task method: progress, log, dependencies), `done`.
 */
import { parentPort, workerData } from 'node:worker_threads';

/** An error as it crosses: enough to rebuild its text (name, message, stack) and its code. */
export interface ErrorShape {
  name: string;
  message: string;
  stack?: string;
  code?: unknown;
}

/** What a failed run sends back: an Error's shape, or any other thrown value (cloned, else as text). */
export type Thrown = { error: ErrorShape } | { value: unknown } | { text: string };

export type ToThread =
  | { type: 'run'; id: number; task: Record<string, unknown>; methods: string[] }
  | { type: 'abort'; id: number; reason: ErrorShape }
  | { type: 'reply'; id: number; call: number; ok: boolean; value?: unknown; error?: Thrown };

export type FromThread =
  | { type: 'call'; id: number; call: number; method: string; args: unknown[] }
  | { type: 'done'; id: number; ok: true; value: unknown }
  | { type: 'done'; id: number; ok: false; thrown: Thrown };

type Run = (task: Record<string, unknown>, signal: AbortSignal) => unknown;

/** import() kept from TypeScript's CommonJS output (which would make it a require). */
const importModule = new Function('url', 'return import(url)') as (url: string) => Promise<Record<string, unknown>>;

/** Runs still going, by id: each one's abort controller and its pending method calls. */
const runs = new Map<number, { controller: AbortController; calls: Map<number, { resolve(v: unknown): void; reject(e: unknown): void }> }>();
let calls = 0;
let loaded: Promise<Run> | undefined;

export function shapeOf(err: Error): ErrorShape {
  return { name: String(err.name), message: String(err.message), stack: err.stack, code: (err as { code?: unknown }).code };
}

export function errorOf(shape: ErrorShape): Error {
  const err = new Error(shape.message);
  err.name = shape.name;
  if (shape.stack !== undefined) err.stack = shape.stack;
  if (shape.code !== undefined) Object.assign(err, { code: shape.code });
  return err;
}

/** A thrown value in a form that crosses: an Error by its shape; else the value itself, or its text. */
export function thrownOf(value: unknown): Thrown {
  try {
    if (value instanceof Error) return { error: shapeOf(value) };
    return { value: structuredClone(value) };
  } catch {
    // Not cloneable (a function, a symbol) or a getter that throws: its text, as the worker would write it.
  }
  try {
    return { text: String(value) };
  } catch {
    return { text: Object.prototype.toString.call(value) };
  }
}

export function rethrown(thrown: Thrown): unknown {
  return 'error' in thrown ? errorOf(thrown.error) : 'value' in thrown ? thrown.value : thrown.text;
}

/** The module's default export (or module.exports): a handler, or a map of handlers by task name. */
async function load(module: string): Promise<Run> {
  const mod = await importModule(module);
  let exported: unknown = mod.default ?? mod;
  // A CommonJS module compiled from `export default` shows up as { default: fn } once more.
  if (exported && typeof exported === 'object' && 'default' in exported) exported = (exported as { default: unknown }).default;
  if (typeof exported === 'function') return exported as Run;
  if (exported && typeof exported === 'object') {
    const map = new Map(Object.entries(exported as Record<string, unknown>).filter(([, h]) => typeof h === 'function') as Array<[string, Run]>);
    if (map.size > 0) {
      return (task, signal) => {
        const run = map.get(task.name as string) ?? map.get('*');
        if (!run)
          throw Object.assign(new Error(`no handler for the task name ${JSON.stringify(task.name)} in ${module} (it has ${[...map.keys()].join(', ')})`), {
            name: 'UnknownTaskNameError',
            code: 'ERR_UNKNOWN_TASK_NAME',
          });
        return run(task, signal);
      };
    }
  }
  throw new TypeError(`${module} exports no handler: expected a function (default export or module.exports), or an object of functions by task name`);
}

function send(message: FromThread): void {
  parentPort!.postMessage(message);
}

/** The task as the handler sees it: its fields, and the methods the main thread offers, as calls. */
function taskFor(id: number, fields: Record<string, unknown>, methods: string[]): Record<string, unknown> {
  const task: Record<string, unknown> = { ...fields };
  for (const method of methods) {
    task[method] = (...args: unknown[]) => {
      const answer = new Promise((resolve, reject) => {
        const call = ++calls;
        runs.get(id)?.calls.set(call, { resolve, reject });
        send({ type: 'call', id, call, method, args });
      });
      // As on the main thread, a progress promise nobody awaits must not crash the thread.
      answer.catch(() => {});
      return answer;
    };
  }
  return task;
}

async function run(message: Extract<ToThread, { type: 'run' }>): Promise<void> {
  const controller = new AbortController();
  runs.set(message.id, { controller, calls: new Map() });
  try {
    loaded ??= load(handlerModule!);
    const value = await (await loaded)(taskFor(message.id, message.task, message.methods), controller.signal);
    try {
      send({ type: 'done', id: message.id, ok: true, value });
    } catch (err) {
      // Not cloneable (a function, a class instance with one): it would not be JSON either.
      send({ type: 'done', id: message.id, ok: false, thrown: thrownOf(new TypeError(`the handler's result cannot leave its thread: ${(err as Error).message}`)) });
    }
  } catch (err) {
    send({ type: 'done', id: message.id, ok: false, thrown: thrownOf(err) });
  } finally {
    runs.delete(message.id);
  }
}

/** Set only in a sandbox thread: sandbox.ts imports this module's helpers, and must not listen. */
const handlerModule = (workerData as { docketSandbox?: string } | null)?.docketSandbox;

if (handlerModule)
  parentPort!.on('message', (message: ToThread) => {
    if (message.type === 'run') void run(message);
    else if (message.type === 'abort') runs.get(message.id)?.controller.abort(errorOf(message.reason));
    else {
      const pending = runs.get(message.id)?.calls;
      const call = pending?.get(message.call);
      pending?.delete(message.call);
      if (message.ok) call?.resolve(message.value);
      else call?.reject(rethrown(message.error!));
    }
  });
