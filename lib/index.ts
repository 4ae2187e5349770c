/**
 * docket: schedule jobs on Redis with de-duplication, delay, rescheduling, priority, expiry and
 * fenced leases. These are the public exports; everything else is internal. This reference,
 * generated from their doc comments (`npm run docs:reference`), holds every signature and option;
 * the guide (docs/guide/) teaches them, and docs/api.md holds the rules neither says.
 *
 * @packageDocumentation
 */
// Every export comes from one of two places: the facade (lib/surfaces/facade/), which declares
// the values (createScheduler and the scheduler it makes, the dashboard, tracing, the back-off),
// and the public types (lib/types/), a leaf folder the layers import. public-surface.test.ts
// fails on an export declared anywhere else.
export { createScheduler } from './surfaces/facade/scheduler';
export { createDashboard, serveDashboard } from './surfaces/facade/dashboard';
export { instrumentOpenTelemetry } from './surfaces/facade/tracing';
export { tracingChannels } from './types/tracing';
export { defaultBackoff } from './surfaces/facade/backoff';
export type { Scheduler } from './types/scheduler';
export type { SchedulerOptions, HashFunction } from './types/scheduler-options';
export type { QueueOption } from './types/queue';
export type { PutOptions, PutResult, PutStatus } from './types/put';
export type { ChangeOptions, Explained, Change, Refusal, RedriveRefusal, CancelOptions, Cancellation } from './types/task-calls';
export type { TaskOutcome, LiveOutcome, DoneOutcome, DeadOutcome, EndedOutcome, MergedOutcome, ResultOptions, Ending } from './types/outcome';
export type { Dependency, DependencyRef, DependencyFailure, DependenciesOptions } from './types/outcome';
export type { Task, TaskInfo, TaskState, Carrier, DoneRun, LogLine, TaskKeep, TaskCaps } from './types/task';
export type { ClaimOptions, FailOptions } from './types/claim';
export type { Worker, WorkOptions, Handler, Handlers, BatchWorker, BatchHandler, BatchOptions, BatchTask } from './types/work';
export type { QueueStats, QueueTotals, NamedTotals, PauseOptions, CleanOptions, ObliterateOptions } from './types/queues';
export type { ListOptions, TaskPage, ListedTask, PreviewListOptions, PreviewPage, PreviewTask } from './types/lists';
export type { KeepOptions, DeadTask, ListDeadOptions } from './types/history';
export type { QueueEvent, EventType, LifecycleEventType, EventsOptions, Throughput, ThroughputOptions } from './types/events';
export type { GroupLimitOptions, GroupLimits, ConcurrencyLimit, OrderGroupsOptions, RateLimit, RateLimitInput, RateLimits, RateLimitOptions } from './types/limits';
export type { Schedule, EveryOptions, ScheduleInfo, TaskTemplateOptions, ScheduleOptions } from './types/schedules';
export type { Queue, QueueName, Sharded, ShardedWorker } from './types/handles';
export type { Logger, LogFn } from './types/log';
export type { MetricsRegistry, MetricsOptions } from './types/metrics';
export type { OpenTelemetryOptions, OpenTelemetryInstrumentation, PutMessage, ClaimMessage, AckMessage, FailMessage } from './types/tracing';
export type { DashboardOptions, ServeOptions, DashboardHandler, DashboardServer } from './types/dashboard';
export type { Json, JsonCompatible } from './types/json';
export type { Span, Duration } from './types/time';
export type { RedisLike, RedisClientLike, ClientOptions } from './types/client';
export {
  DocketError,
  ValidationError,
  PayloadTooLargeError,
  ClosedError,
  LeaseLostError,
  CancelledError,
  RunTimeoutError,
  EventLoopBlockedError,
  UnknownTaskNameError,
  OutOfMemoryError,
  IndeterminateError,
  TimeoutError,
  ConnectionError,
  LoadingError,
  BusyError,
  TryAgainError,
  ReadOnlyError,
  PermissionError,
  RedisError,
  MissingPeerError,
  MetricsRegisteredError,
  QueueActiveError,
  SandboxExitError,
  HashFunctionError,
  UnreadableRecordError,
  DecryptionError,
  ReplyError,
  UnrecoverableError,
  RetryLaterError,
  UnsupportedServerError,
} from './types/errors';
export type { ErrorCode, RetryLaterOptions } from './types/errors';
