/**
 * Handlers per task name: `work({ 'send-email': send, resize })` runs each task by the handler
 * of its name (put's `name`). A task whose name has no handler (an unnamed one included) runs by
 * the `'*'` handler when there is one; else its attempt fails with an UnknownTaskNameError, so it
 * is retried and goes dead like any failure, visible with its last error, never acked unseen.
 */
import { UnknownTaskNameError, ValidationError } from '../domain/errors';
import type { Json } from '../domain/payload';
import type { Task } from '../domain/task';

/** A handler: its resolved value (any JSON, or nothing) is the task's result. */
export type Handler<T = Json, R = Json> = (task: Task<T>, signal: AbortSignal) => Promise<R | void | undefined>;

/** Handlers by task name; `'*'` takes every task whose name has none of its own. */
export type Handlers<T = Json, R = Json> = Readonly<Record<string, Handler<T, R>>>;

/** The one handler a worker runs: `handler` itself, or the router of a map of them. */
export function handlerOf<T>(handler: Handler<T> | Handlers<T>): Handler<T> {
  if (typeof handler === 'function') return handler;
  if (typeof handler !== 'object' || handler === null || Array.isArray(handler)) {
    throw new ValidationError('handler', 'expected a function, or an object of functions by task name');
  }
  // A copy: a map changed after work() does not change what this worker runs.
  const map = new Map<string, Handler<T>>(Object.entries(handler));
  if (map.size === 0) throw new ValidationError('handler', 'expected at least one task name with its handler');
  for (const [name, h] of map) if (typeof h !== 'function') throw new ValidationError(`handler[${JSON.stringify(name)}]`, 'expected a function');
  const fallback = map.get('*');
  return (task, signal) => {
    const run = (task.name === null ? undefined : map.get(task.name)) ?? fallback;
    if (!run) return Promise.reject(new UnknownTaskNameError(task.hash, task.name, [...map.keys()]));
    return run(task, signal);
  };
}
