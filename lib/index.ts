/**
 * docket: schedule jobs on Redis with de-duplication, delay, rescheduling, priority, expiry and
 * fenced leases. These are the public exports; everything else is internal.
 */
export { createScheduler } from './scheduler';
export type { Scheduler, SchedulerOptions, QueueOption, DependenciesOptions, ChangeOptions, Explained, Change, Refusal, RedriveRefusal } from './scheduler';
export type { TaskOutcome, LiveOutcome, DoneOutcome, DeadOutcome, EndedOutcome, MergedOutcome, ResultOptions } from './outcome';
export type { Dependency, DependencyRef, DependencyFailure } from './deps';
export type { QueueStats, QueueTotals, ListOptions, TaskPage, ListedTask, PreviewListOptions, PreviewPage, PreviewTask } from './admin';
export type { QueueEvent, EventType, EventsOptions, Throughput, ThroughputOptions } from './events';
export type { Logger, LogFn } from './log';
export type { MetricsRegistry, MetricsOptions } from './metrics';
export { instrumentOpenTelemetry } from './otel';
export type { OpenTelemetryOptions, OpenTelemetryInstrumentation } from './otel';
export { channels as tracingChannels } from './tracing';
export { createDashboard, serveDashboard } from './dashboard-entry';
export type { DashboardOptions, ServeOptions, DashboardHandler, DashboardServer } from './dashboard';
export type { PutMessage, ClaimMessage, AckMessage, FailMessage } from './tracing';
export type { PutOptions } from './put';
export type { ClaimOptions, FailOptions } from './lease';
export type { Worker, WorkOptions } from './worker';
export type { Handler, Handlers } from './route';
export type { Task, TaskInfo, TaskState, PutResult, PutStatus, Carrier } from './task';
export type { LogLine } from './logs';
export type { DeadTask, ListDeadOptions } from './dead';
export type { CleanOptions, ObliterateOptions } from './clean';
export type { GroupLimitOptions, GroupLimits, ConcurrencyLimit } from './groups';
export type { RateLimit, RateLimitInput, RateLimits, RateLimitOptions } from './rates';
export type { Schedule, EveryOptions, ScheduleInfo } from './recurring';
export type { Sharded, ShardedWorker } from './shards';
export type { Json, JsonCompatible } from './payload';
export type { Queue, QueueName } from './queue';
export type { Span, Duration } from './time';
export type { HashFunction } from './hashing';
export type { RedisLike, RedisClientLike, ClientOptions } from './connection';
export { defaultBackoff } from './backoff';
export {
  DocketError,
  ValidationError,
  PayloadTooLargeError,
  ClosedError,
  LeaseLostError,
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
  ReplyError,
} from './errors';
export type { ErrorCode } from './errors';
