/**
 * The call forms of before 0.2 that still work until 1.0: pause, resume, events and throughput
 * took their queue as a string, and take `{ queue }` now, as every other method does. The old
 * form is told apart from the new here, with a deprecation warning once per method, so that the
 * methods themselves see one form only and the old one can go in one place.
 */
import type { Context } from '../../redis/context';
import { ValidationError } from '../../types/errors';

export class Deprecated {
  private readonly warned = new Set<string>();

  constructor(
    private readonly ctx: Context,
    private readonly warn: (message: string) => void,
  ) {}

  /** The queue of a method that took it as a string before 0.2 and takes `{ queue }` now. */
  queueIn(method: string, options: unknown): string {
    if (typeof options !== 'string') return this.ctx.queueOf(options);
    this.deprecated(method);
    return this.ctx.checkQueue(options, 'queue');
  }

  /**
   * events() and throughput(): `({ queue, ...options })`, or the old `(queue, options)`. The
   * queue is split off here; the rest is checked by the method's own schema as before.
   */
  queueAnd<O extends object>(method: string, first: unknown, second: O | undefined): [string, O | undefined] {
    if (typeof first === 'string' || (first === undefined && second !== undefined)) {
      this.deprecated(method);
      return [first === undefined ? this.ctx.options.queue : this.ctx.checkQueue(first, 'queue'), second];
    }
    if (second !== undefined) throw new ValidationError('options', `${method}() takes one options object ({ queue, ... }); got a second argument`);
    if (first === null || typeof first !== 'object' || Array.isArray(first)) {
      if (first === undefined) return [this.ctx.options.queue, undefined];
      throw new ValidationError('options', 'expected an object');
    }
    const { queue, ...rest } = first as { queue?: unknown };
    return [this.ctx.queueOf({ queue }), rest as O];
  }

  private deprecated(method: string): void {
    if (this.warned.has(method)) return;
    this.warned.add(method);
    this.warn(`docket: ${method}('queue') is deprecated and will go in 1.0: pass { queue: 'queue' }, as every other method takes it`);
  }
}
