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
import type { LeasedRecord } from '../ops/claim';
import { Attempt, ATTEMPT, type WithAttempt } from './attempt';
import { logsOf } from './logs';
import { progressOf } from './progress';
import { snooze } from './snooze';

/** A task's fields, set once by the constructor (a claim's reply is what they come from). */
type Fields<T> = Pick<Task<T>, 'hash' | 'queue' | 'data' | 'attempt' | 'runAt' | 'expireAt' | 'leaseUntil' | 'token' | 'trace' | 'keepResult' | 'timeout' | 'name' | 'group'>;

/** Where a claim leased a task: its queue, the lease's end (Redis clock) and token, the task's decoded trace. */
export interface Lease {
  queue: string;
  until: number;
  token: string;
  trace: Carrier | null;
}

// The fields, declared once (Task's own), and set in the constructor.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface LeasedTask<T = Json> extends Fields<T> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class LeasedTask<T = Json> implements Task<T>, WithAttempt {
  readonly progress: (value: Json) => Promise<boolean>;
  readonly log: (line: string) => Promise<boolean>;
  readonly dependencies: Task<T>['dependencies'];
  readonly snooze: (span: Span) => Promise<boolean>;
  readonly [ATTEMPT] = new Attempt();

  /** The task `leased` names, as `lease` leased it; `onProblem` hears of refused progress writes (a work() loop's report). */
  constructor(ctx: Context, leased: LeasedRecord, lease: Lease, onProblem?: (err: unknown) => void) {
    // Set one by one, in one order: every task has the same shape (no Object.assign, no spread).
    const self = this as { -readonly [K in keyof Fields<T>]: Fields<T>[K] };
    self.hash = leased.id;
    self.queue = lease.queue;
    self.data = undefined as T;
    self.attempt = leased.attempt;
    self.runAt = leased.runAt;
    self.expireAt = leased.expireAt;
    self.leaseUntil = lease.until;
    self.token = lease.token;
    self.trace = lease.trace;
    self.keepResult = leased.keepResult;
    self.timeout = leased.timeout;
    self.name = leased.name;
    self.group = leased.group;
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
