/**
 * A leased task as claim() and work() hand it out: its fields, its calls (progress, log,
 * dependencies, snooze: own functions, so a handler may pass them on unbound), and `signal`, made
 * when first read. It carries its attempt (attempt.ts), which the worker pipeline stops and where
 * a snooze is recorded. `signal` is a getter of the class, not a field, so JSON.stringify(task),
 * Object.entries(task) and a spread of it do not make it.
 */
import type { Context } from '../redis/context';
import { dependencies } from '../features/deps';
import type { Json } from '../types/json';
import type { Carrier, Task } from '../types/task';
import type { Span } from '../types/time';
import { Attempt, ATTEMPT, type WithAttempt } from './attempt';
import { logsOf } from './logs';
import { progressOf } from './progress';
import { snooze } from './snooze';

/** A task's fields as a claim leased it. */
export type LeasedFields<T> = Pick<Task<T>, 'hash' | 'queue' | 'data' | 'attempt' | 'runAt' | 'expireAt' | 'leaseUntil' | 'token' | 'trace' | 'keepResult' | 'timeout' | 'name' | 'group'>;

export class LeasedTask<T = Json> implements Task<T>, WithAttempt {
  readonly hash!: string;
  readonly queue!: string;
  readonly data!: T;
  readonly attempt!: number;
  readonly runAt!: number;
  readonly expireAt!: number | null;
  leaseUntil!: number;
  readonly token!: string;
  readonly trace!: Carrier | null;
  readonly keepResult!: number | null;
  readonly timeout!: number | null;
  readonly name!: string | null;
  readonly group!: string | null;
  readonly progress: (value: Json) => Promise<boolean>;
  readonly log: (line: string) => Promise<boolean>;
  readonly dependencies: Task<T>['dependencies'];
  readonly snooze: (span: Span) => Promise<boolean>;
  readonly [ATTEMPT] = new Attempt();

  /** `onProblem` hears of refused progress writes (a work() loop's report). */
  constructor(ctx: Context, f: LeasedFields<T>, onProblem?: (err: unknown) => void) {
    Object.assign(this, f);
    this.progress = (value) => progressOf(ctx, this, onProblem).report(value);
    this.log = (line) => logsOf(ctx, this, onProblem).write(line);
    this.dependencies = () => dependencies(ctx, this.queue, this.hash);
    this.snooze = (span) => snooze(ctx, this, span);
  }

  /** The attempt's AbortSignal, made when first read (Task.signal). */
  get signal(): AbortSignal {
    return this[ATTEMPT].signal;
  }
}
