/**
 * Every option is declared twice: an interface for callers (with its TSDoc) and a zod schema that
 * checks it (lib/domain/options/, and the dashboard's lib/surfaces/dashboard/options.ts). Nothing at run time
 * compares the two, so this file does at compile time: `npm test`'s type check (tsc) fails on any
 * pair whose names, optionality or types differ. The one test below only keeps jest content.
 */
import type { z } from 'zod';
import type {
  OpenTelemetryOptions,
  ChangeOptions,
  ClaimOptions,
  CleanOptions,
  DashboardOptions,
  DependenciesOptions,
  EventsOptions,
  EveryOptions,
  FailOptions,
  GroupLimitOptions,
  KeepOptions,
  ListOptions,
  Logger,
  MetricsOptions,
  MetricsRegistry,
  ObliterateOptions,
  PreviewListOptions,
  PutOptions,
  QueueOption,
  RateLimitInput,
  RateLimitOptions,
  ResultOptions,
  Schedule,
  ScheduleOptions,
  SchedulerOptions,
  ServeOptions,
  TaskState,
  ThroughputOptions,
  WorkOptions,
  Worker,
} from '../lib';
import type { dashboardOptions, serveOptions } from '../lib/surfaces/dashboard/options';
import type * as options from '../lib/domain/options';

/**
 * True only when A and B are the same type, not merely assignable (either way, or both): the
 * conditional-type test, which also tells `{ a?: number }` from `{}`, assignable to each other.
 */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** An intersection as one object type, which Equals can compare. */
type Flat<T> = { [K in keyof T]: T[K] };
/** Whether the schema's input type is the interface: the same names, optionality and types. */
type Agree<Schema extends z.ZodType, Interface> = Equals<z.input<Schema>, Interface>;

/** Each entry compiles only when it is `true`: a false one fails `satisfies`, naming the entry. */
const AGREEMENT = {
  // The logger is checked by its own schema (log.ts's checkLogger), below.
  scheduler: true as Agree<typeof options.schedulerOptions, Omit<SchedulerOptions, 'logger'>>,
  logger: true as Agree<typeof options.loggerOption, Logger>,
  put: true as Agree<typeof options.putOptions, PutOptions>,
  claim: true as Agree<typeof options.claimOptions, ClaimOptions>,
  fail: true as Agree<typeof options.failOptions, FailOptions>,
  work: true as Agree<typeof options.workOptions, WorkOptions>,
  close: true as Agree<typeof options.closeOptions, NonNullable<Parameters<Worker['close']>[0]>>,
  queue: true as Agree<typeof options.queueOptions, QueueOption>,
  change: true as Agree<typeof options.changeOptions, ChangeOptions>,
  result: true as Agree<typeof options.resultOptions, ResultOptions>,
  dependencies: true as Agree<typeof options.dependenciesOptions, DependenciesOptions>,
  clean: true as Agree<typeof options.cleanOptions, CleanOptions>,
  keep: true as Agree<typeof options.keepOptions, KeepOptions>,
  obliterate: true as Agree<typeof options.obliterateOptions, ObliterateOptions>,
  every: true as Agree<typeof options.everyOptions, EveryOptions>,
  schedule: true as Agree<typeof options.scheduleArg, Schedule>,
  scheduleOptions: true as Agree<typeof options.scheduleOptions, ScheduleOptions>,
  rate: true as Agree<typeof options.rateArg, RateLimitInput>,
  rateScope: true as Agree<typeof options.rateScope, RateLimitOptions>,
  groupLimit: true as Agree<typeof options.groupLimitOptions, GroupLimitOptions>,
  // list() takes ListOptions, or PreviewListOptions (the same with `preview`): one schema checks both.
  list: true as Agree<typeof options.listOptions, Flat<ListOptions & Partial<Pick<PreviewListOptions, 'preview'>>>>,
  listState: true as Equals<(typeof options.STATES)[number], TaskState>,
  events: true as Agree<typeof options.eventsOptions, EventsOptions>,
  throughput: true as Agree<typeof options.throughputOptions, ThroughputOptions>,
  metrics: true as Agree<typeof options.metricsOptions, MetricsOptions>,
  metricsRegistry: true as Agree<typeof options.metricsRegistry, MetricsRegistry>,
  dashboard: true as Agree<typeof dashboardOptions, DashboardOptions>,
  serve: true as Agree<typeof serveOptions, ServeOptions>,
  openTelemetry: true as Agree<typeof options.openTelemetryOptions, OpenTelemetryOptions>,
  listDead: true as Agree<typeof options.listDeadOptions, ListOptions>,
} satisfies Record<string, true>;

describe('the public option types', () => {
  it('are the input types of the zod schemas that check them (checked by tsc)', () => {
    expect(Object.values(AGREEMENT).every((agrees) => agrees)).toBe(true);
  });
});
