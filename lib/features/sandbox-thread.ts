/**
 * The entry of a sandbox thread (see sandbox.ts): loads the handler module once, then runs one task
 * at a time as the main thread asks. Of docket it imports only payload.ts (and errors.ts, time.ts), so a
 * thread starts in about 20 ms, and it holds no connection: claims, leases, heartbeats and acks
 * stay on the main thread, which a handler blocking this thread's loop cannot hold up.
 *
 * Messages in (workerData: { docketSandbox: the module's file URL, maxResultBytes }): `run` (a task
 * as a plain object, with the names of the task methods the main thread offers), `abort` (the
 * signal's reason as name and message), `reply` (the answer to a task method call). Out: `call` (a
 * task method: progress, log, dependencies, snooze), `done`. A thrown UnrecoverableError or
 * RetryLaterError crosses by its code (and its time), and is rebuilt as docket's on the main
 * thread, so it ends its attempt as it would in one thread.
 *
 * A result or progress value is checked here, by the same canonicalJson as in one thread, and
 * crosses as its JSON text: a value the main thread could not read (a list 5,000 nodes long, which
 * a thread's larger stack clones but the main thread's cannot) never leaves, and the main thread's
 * JSON.parse makes an own "__proto__" key an own property again, as the value had it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PayloadTooLargeError, RetryLaterError, UnrecoverableError, UNSHOWABLE_THROWN, ValidationError } from '../types/errors';
import { canonicalJson } from '../domain/payload';

/**
 * An error as it crosses: enough to rebuild its text (name, message, stack), its code when that is
 * a string or a number, and a ValidationError's field (with a PayloadTooLargeError's sizes).
 */
export interface ErrorShape {
  name: string;
  message: string;
  stack?: string;
  code?: string | number;
  field?: string;
  bytes?: number;
  limit?: number;
  /** A RetryLaterError's time: its `delay` (ms or a Duration) or its `at` (epoch ms). */
  delay?: unknown;
  at?: number;
}

/**
 * What a failed run sends back: an Error's shape, or any other thrown value as its JSON text when
 * it has one (else as its text): never a value the other side might not read.
 */
export type Thrown = { error: ErrorShape } | { json: string } | { text: string };

export type ToThread =
  | { type: 'run'; id: number; task: Record<string, unknown>; methods: string[] }
  | { type: 'abort'; id: number; reason: ErrorShape }
  | { type: 'reply'; id: number; call: number; ok: boolean; value?: unknown; error?: Thrown };

/** A call's arguments, except progress's value, which goes as its checked JSON text (`json`). */
export type FromThread =
  | { type: 'call'; id: number; call: number; method: string; args: unknown[]; json?: string }
  | { type: 'done'; id: number; ok: true; json?: string }
  | { type: 'done'; id: number; ok: false; thrown: Thrown };

/** What a thread is started with: the handler module, and the scheduler's maxResultBytes. */
export interface ThreadData {
  docketSandbox: string;
  maxResultBytes: number;
}

type Run = (task: Record<string, unknown>, signal: AbortSignal) => unknown;

/** import() kept from TypeScript's CommonJS output (which would make it a require). */
const importModule = new Function('url', 'return import(url)') as (url: string) => Promise<Record<string, unknown>>;

/**
 * The longest JSON of a thrown value that crosses as a value; a longer one crosses as its text,
 * which is what the worker writes of it anyway (thrownText, log.ts, has the same bound).
 */
const MAX_THROWN_CHARS = 16 * 1024;

/** Runs still going, by id: each one's abort controller and its pending method calls. */
const runs = new Map<number, { controller: AbortController; calls: Map<number, { resolve(v: unknown): void; reject(e: unknown): void }> }>();
let calls = 0;
let loaded: Promise<Run> | undefined;

export function shapeOf(err: Error): ErrorShape {
  const { code, field, bytes, limit } = err as Partial<Record<'code' | 'field' | 'bytes' | 'limit', unknown>>;
  const shape: ErrorShape = { name: String(err.name), message: String(err.message), stack: err.stack };
  // Only what surely crosses: a code that is an object may be anything (a list 5,000 deep).
  if (typeof code === 'string' || typeof code === 'number') shape.code = code;
  if (typeof field === 'string') Object.assign(shape, { field, bytes: typeof bytes === 'number' ? bytes : 0, limit: typeof limit === 'number' ? limit : 0 });
  // A RetryLaterError's time crosses with it (a Duration is plain numbers), so it ends the attempt as in one thread.
  const { delay, at } = err as Partial<Record<'delay' | 'at', unknown>>;
  if (shape.code === 'ERR_RETRY_LATER') Object.assign(shape, typeof at === 'number' ? { at } : { delay: JSON.parse(JSON.stringify(delay ?? null)) as unknown });
  return shape;
}

/**
 * The error a shape describes: a ValidationError (or PayloadTooLargeError) of this side's docket
 * when it was one, so a value refused in the thread fails its attempt as it would in one thread.
 */
export function errorOf(shape: ErrorShape): Error {
  let err: Error;
  if (shape.field !== undefined && shape.code === 'ERR_PAYLOAD_TOO_LARGE') err = new PayloadTooLargeError(shape.field, shape.bytes ?? 0, shape.limit ?? 0);
  else if (shape.field !== undefined && shape.code === 'ERR_VALIDATION') err = new ValidationError(shape.field, '');
  else if (shape.code === 'ERR_UNRECOVERABLE') err = new UnrecoverableError('');
  else if (shape.code === 'ERR_RETRY_LATER') err = retryLater(shape);
  else err = new Error();
  Object.assign(err, { name: shape.name, message: shape.message });
  if (shape.stack !== undefined) err.stack = shape.stack;
  if (shape.code !== undefined) Object.assign(err, { code: shape.code });
  return err;
}

/** The RetryLaterError a shape describes; one whose time does not check (not docket's) is a plain Error. */
function retryLater(shape: ErrorShape): Error {
  try {
    return new RetryLaterError('', shape.at !== undefined ? { at: shape.at } : { delay: shape.delay as number });
  } catch {
    return new Error();
  }
}

/** A thrown value in a form that crosses: an Error by its shape; else its JSON text, or its text. */
export function thrownOf(value: unknown): Thrown {
  try {
    if (value instanceof Error) return { error: shapeOf(value) };
    return { json: canonicalJson(value, 'thrown', { bytes: MAX_THROWN_CHARS }) };
  } catch {
    // Not JSON (a function, a Map, a cycle, a list too deep) or a getter that throws: its text, as
    // the worker would write it (an array's String() could take for ever: [x, x] forty deep).
  }
  try {
    return { text: Array.isArray(value) ? Object.prototype.toString.call(value) : String(value) };
  } catch {
    // Not even its type, for a Proxy whose every trap throws.
  }
  try {
    return { text: Object.prototype.toString.call(value) };
  } catch {
    return { text: UNSHOWABLE_THROWN };
  }
}

export function rethrown(thrown: Thrown): unknown {
  return 'error' in thrown ? errorOf(thrown.error) : 'json' in thrown ? JSON.parse(thrown.json) : thrown.text;
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

/** A result or progress value's JSON text, checked as the main thread would (throws its ValidationError). */
function outcomeJson(value: unknown, field: 'result' | 'progress'): string {
  return canonicalJson(value, field, { bytes: config!.maxResultBytes, what: field });
}

/** The task as the handler sees it: its fields, and the methods the main thread offers, as calls. */
function taskFor(id: number, fields: Record<string, unknown>, methods: string[]): Record<string, unknown> {
  const task: Record<string, unknown> = { ...fields };
  for (const method of methods) {
    task[method] = (...args: unknown[]) => {
      // As in one thread, a progress value that is not JSON (or too large) throws at once.
      const json = method === 'progress' ? outcomeJson(args[0], 'progress') : undefined;
      const answer = new Promise((resolve, reject) => {
        const call = ++calls;
        runs.get(id)?.calls.set(call, { resolve, reject });
        send(json === undefined ? { type: 'call', id, call, method, args } : { type: 'call', id, call, method, args: [], json });
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
    loaded ??= load(config!.docketSandbox);
    // task.signal is the run's signal here too, as on the main thread.
    const task = { ...taskFor(message.id, message.task, message.methods), signal: controller.signal };
    const value = await (await loaded)(task, controller.signal);
    // No result is no result; any other value fails the attempt here, as resultJson would.
    send({ type: 'done', id: message.id, ok: true, json: value === undefined ? undefined : outcomeJson(value, 'result') });
  } catch (err) {
    send({ type: 'done', id: message.id, ok: false, thrown: thrownOf(err) });
  } finally {
    runs.delete(message.id);
  }
}

/** Set only in a sandbox thread: sandbox.ts imports this module's helpers, and must not listen. */
const config = (workerData as Partial<ThreadData> | null)?.docketSandbox === undefined ? undefined : (workerData as ThreadData);

if (config)
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
