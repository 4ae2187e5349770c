/**
 * Every option docket takes, checked and defaulted here by zod and nowhere else. Schemas are
 * strict, so a misspelled option is reported instead of dropped. One folder, so that every check
 * and default has one home; one module per kind of call inside it, so that each reads on its own:
 * the names and the kinds of value all options share (names.ts, values.ts), and the options of
 * starting a scheduler, of a task, of workers, of limits, of whole queues, of schedules, of
 * watching and of handles. The rest of docket imports from here.
 */
export { parse } from './parse';
export { queueName, scheduleName, taskHash, taskName } from './names';
export {
  count,
  countArg,
  instantArg,
  MAX_DEDUP_WINDOW_MS,
  MAX_INSTANT_MS,
  MAX_KEEP_RESULT_MS,
  MAX_LEVEL,
  MAX_RUN_TIMEOUT_MS,
  MAX_SPAN_MS,
  MAX_TIMER_MS,
  priorityArg,
  spanArg,
} from './values';
export { eventArgs, loggerOption, schedulerOptions, type ParsedSchedulerOptions } from './scheduler';
export { cancelOptions, changeOptions, dependenciesOptions, MAX_AFTER, MAX_WAIT_MS, putOptions, queueOptions, resultOptions } from './task';
export {
  batchOptions,
  claimOptions,
  closeOptions,
  failOptions,
  HEARTBEAT_DEADLINE_MS,
  HEARTBEAT_INTERVAL_MS,
  MAX_HEARTBEAT_DEADLINE_MS,
  MAX_HEARTBEAT_INTERVAL_MS,
  MIN_HEARTBEAT_INTERVAL_MS,
  workOptions,
  type ParsedBatchOptions,
  type ParsedWorkOptions,
} from './work';
export { concurrencyArg, groupLimitArg, groupLimitOptions, groupPauseOptions, limitRateTail, MAX_GROUP_LIMIT, orderGroupsArg, orderGroupsOptions, rateArg, rateScope } from './limits';
export {
  CLEAN_STATES,
  cleanOptions,
  COUNTED_STATES,
  listDeadOptions,
  listOptions,
  MAX_PREVIEW_BYTES,
  obliterateOptions,
  stateArg,
  STATES,
  type CleanOptionsInput,
  type ObliterateOptionsInput,
} from './admin';
export { keepOptions, taskKeep, type KeepOptionsInput, type TaskKeepInput } from './keep';
export {
  everyOptions,
  MAX_OCCURRENCES,
  MIN_INTERVAL_MS,
  scheduleArg,
  scheduleOptions,
  storedDefinition,
  type ParsedEveryOptions,
  type ParsedSchedule,
  type ParsedScheduleOptions,
  type TaskTemplate,
} from './schedules';
export { eventsOptions, metricsOptions, metricsRegistry, openTelemetryOptions, throughputOptions } from './observe';
export { boundOptions, keyArg, MAX_SHARDS, shardChosen, shardCount } from './handles';
