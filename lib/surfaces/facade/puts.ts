/** The scheduler's calls that put tasks (the puts themselves: lib/life/put.ts). */
import { putMany, putOne } from '../../life/put';
import type { Json, JsonCompatible } from '../../types/json';
import type { PutOptions, PutResult, SchedulerPuts } from '../../types/put';
import { SchedulerCore } from './core';

export abstract class WithPuts extends SchedulerCore implements SchedulerPuts {
  // The payload is checked as JSON at run time (canonicalJson), whatever its type says.
  put(data: Json, options?: PutOptions): Promise<PutResult>;
  put<T>(data: T & JsonCompatible<T>, options?: PutOptions): Promise<PutResult>;
  put(data: unknown, options?: PutOptions): Promise<PutResult> {
    return this.open(async () => putOne(this.ctx, data as Json, options));
  }

  putMany(items: Array<{ data: Json; options?: PutOptions }>): Promise<PutResult[]>;
  putMany<T>(items: Array<{ data: T & JsonCompatible<T>; options?: PutOptions }>): Promise<PutResult[]>;
  putMany(items: Array<{ data: unknown; options?: PutOptions }>): Promise<PutResult[]> {
    return this.open(() => putMany(this.ctx, items as Array<{ data: Json; options?: PutOptions }>));
  }
}
