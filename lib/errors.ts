/**
 * Every error docket throws is a {@link DocketError} with a stable `code`, so callers branch on
 * `err.code` or `instanceof`, never on message text. A duplicate put is not an error: it is a
 * result (`added: false`).
 */

/** The stable codes of docket's errors. */
export type ErrorCode =
  | 'ERR_VALIDATION'
  | 'ERR_PAYLOAD_TOO_LARGE'
  | 'ERR_CLOSED'
  | 'ERR_LEASE_LOST'
  | 'ERR_OUT_OF_MEMORY'
  | 'ERR_REDIS';

/** Base class of every error docket throws. */
export class DocketError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * An argument or option is invalid. `field` names it (`options.delay`, `data.user.id`, `items[3].options.queue`).
 * Thrown before any I/O: nothing was written to Redis.
 */
export class ValidationError extends DocketError {
  readonly field: string;

  constructor(field: string, message: string, code: ErrorCode = 'ERR_VALIDATION') {
    super(code, `${field}: ${message}`);
    this.field = field;
  }
}

/** The canonical payload is larger than `maxPayloadBytes`. Thrown before any I/O. */
export class PayloadTooLargeError extends ValidationError {
  readonly bytes: number;
  readonly limit: number;

  constructor(field: string, bytes: number, limit: number) {
    super(field, `payload is ${bytes} bytes, over the limit of ${limit} bytes`, 'ERR_PAYLOAD_TOO_LARGE');
    this.bytes = bytes;
    this.limit = limit;
  }
}

/** The scheduler or worker was closed before the call. */
export class ClosedError extends DocketError {
  constructor(what: string) {
    super('ERR_CLOSED', `${what} is closed`);
  }
}

/**
 * The worker no longer holds a task's lease: it lapsed, or the task was leased to another worker.
 * work() aborts a handler's signal with this error as the reason.
 */
export class LeaseLostError extends DocketError {
  readonly hash: string;

  constructor(hash: string) {
    super('ERR_LEASE_LOST', `lease on task ${hash} was lost; another worker may run it`);
    this.hash = hash;
  }
}

/**
 * Redis refused a write because `maxmemory` is reached. A refused put wrote nothing of the task it
 * failed on; in a putMany, tasks before it in the same call may have been stored (their puts are
 * safe to repeat: de-duplication returns added: false).
 */
export class OutOfMemoryError extends DocketError {
  constructor(cause: unknown) {
    super('ERR_OUT_OF_MEMORY', 'Redis is out of memory (maxmemory reached): the write was refused', { cause });
  }
}

/** Any other failure reported by Redis or the connection to it; `cause` holds the original. */
export class RedisError extends DocketError {
  constructor(cause: unknown) {
    super('ERR_REDIS', `Redis call failed: ${messageOf(cause)}`, { cause });
  }
}

/** The one place that turns a raw client or server error into a DocketError. */
export function fromRedisError(err: unknown): DocketError {
  if (err instanceof DocketError) return err;
  const message = messageOf(err);
  if (message.startsWith('OOM')) return new OutOfMemoryError(err);
  return new RedisError(err);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
