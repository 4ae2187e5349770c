/**
 * The logger docket writes to (a pino logger fits).
 */
/** One level of a {@link Logger}, in pino's call shape: the record's fields, then its message. */
export type LogFn = (obj: Record<string, unknown>, msg: string) => void;

/**
 * The levels docket logs at: info (a worker started or closed, a task will be retried) and warn (a
 * task is dead, a recovered error). pino's logger has them (and more, which docket leaves alone).
 */
export interface Logger {
  /** A worker started or closed, a task will be retried. */
  info: LogFn;
  /** A task is dead, an error docket recovered from. */
  warn: LogFn;
  /** Never called by docket: optional, so that a logger object written with every level still fits. */
  debug?: LogFn;
  /** Never called by docket: optional, as `debug`. */
  error?: LogFn;
}
