/**
 * Handlers per task name: `work({ 'send-email': send, resize })` runs each task by the handler
 * of its name (put's `name`). A task whose name has no handler (an unnamed one included) runs by
 * the `'*'` handler when there is one; else its attempt fails with an UnknownTaskNameError, so it
 * is retried and goes dead like any failure, visible with its last error, never acked unseen.
 */
import { UnknownTaskNameError, ValidationError } from '../types/errors';
import type { Task } from '../types/task';
import type { Handler, Handlers } from '../types/work';

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
  const unknown: Handler<T> = (task) => Promise.reject(new UnknownTaskNameError(task.hash, task.name, [...map.keys()]));
  const pick = (task: Task<T>) => (task.name === null ? undefined : map.get(task.name)) ?? fallback ?? unknown;
  const router: Handler<T> = (task, signal) => pick(task)(task, signal);
  routers.set(router as Handler<unknown>, pick as (task: Task<unknown>) => Handler<unknown>);
  return router;
}

/** What each router of handlerOf() runs a task by: the pipeline asks it, and calls that handler itself. */
const routers = new WeakMap<Handler<unknown>, (task: Task<unknown>) => Handler<unknown>>();

/**
 * Which handler runs each task: a router's choice by task name, else `handler` itself. The
 * worker pipeline calls the chosen handler directly, so that it knows how many parameters that
 * handler declares (pipeline/index.ts: one that takes only the task is not given a signal).
 */
export function pickerOf(handler: Handler<unknown>): (task: Task<unknown>) => Handler<unknown> {
  return routers.get(handler) ?? (() => handler);
}
