/**
 * docket: schedule jobs on Redis with de-duplication, delay, rescheduling, priority, expiry and
 * fenced leases. These are the public exports; everything else is internal. docs/api.md shows
 * them at work; the reference in docs/reference/ is generated from their doc comments
 * (`npm run docs:reference`).
 *
 * @packageDocumentation
 */
export { createScheduler } from './surfaces/scheduler';
export type { Scheduler, SchedulerOptions, QueueOption, DependenciesOptions, ChangeOptions, Explained, Change, Refusal, RedriveRefusal } from './surfaces/scheduler';
export type { CancelOptions, Cancellation, PauseOptions } from './surfaces/scheduler';
export type { TaskOutcome, LiveOutcome, DoneOutcome, DeadOutcome, EndedOutcome, MergedOutcome, ResultOptions } from './life/outcome';
export type { Dependency, DependencyRef, DependencyFailure } from './features/deps';
export type { QueueStats, QueueTotals, NamedTotals, ListOptions, TaskPage, ListedTask, PreviewListOptions, PreviewPage, PreviewTask } from './features/admin';
export type { QueueEvent, EventType, LifecycleEventType, EventsOptions, Throughput, ThroughputOptions } from './features/events';
export type { Logger, LogFn } from './domain/log';
export type { MetricsRegistry, MetricsOptions } from './features/metrics';
export { instrumentOpenTelemetry } from './features/otel';
export type { OpenTelemetryOptions, OpenTelemetryInstrumentation } from './features/otel';
export { channels as tracingChannels } from './features/tracing';
export { createDashboard, serveDashboard } from './dashboard-entry';
export type { DashboardOptions, ServeOptions, DashboardHandler, DashboardServer } from './surfaces/dashboard';
export type { PutMessage, ClaimMessage, AckMessage, FailMessage } from './features/tracing';
export type { PutOptions } from './life/put';
export type { ClaimOptions, FailOptions } from './life/lease';
export type { Worker, WorkOptions } from './life/worker';
export type { BatchWorker, BatchHandler, BatchOptions, BatchTask } from './life/worker';
export type { Handler, Handlers } from './life/route';
export type { Task, TaskInfo, TaskState, PutResult, PutStatus, Carrier, Ending } from './domain/task';
export type { TaskKeep, TaskCaps } from './domain/kept';
export type { LogLine } from './life/logs';
export type { DeadTask, ListDeadOptions } from './life/dead';
export type { KeepOptions } from './life/history';
export type { DoneRun } from './domain/task';
export type { CleanOptions, ObliterateOptions } from './features/clean';
export type { GroupLimitOptions, GroupLimits, ConcurrencyLimit, OrderGroupsOptions } from './features/groups';
export type { RateLimit, RateLimitInput, RateLimits, RateLimitOptions } from './features/rates';
export type { Schedule, EveryOptions, ScheduleInfo, TaskTemplateOptions } from './features/recurring';
export type { ScheduleOptions } from './features/schedules';
export type { Sharded, ShardedWorker } from './features/shards';
export type { Json, JsonCompatible } from './domain/payload';
export type { Queue, QueueName } from './surfaces/queue';
export type { Span, Duration } from './domain/time';
export type { HashFunction } from './domain/hashing';
export type { RedisLike, RedisClientLike, ClientOptions } from './redis/connection';
export { defaultBackoff } from './domain/backoff';
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
} from './domain/errors';
export type { ErrorCode, RetryLaterOptions } from './domain/errors';
