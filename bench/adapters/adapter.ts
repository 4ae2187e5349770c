/**
 * The one interface every library runs the benchmark through, so each scenario is written once
 * and the libraries differ only in how they map these calls onto their own API.
 */
export type Payload = { to: string; template: string; n: number };
/** What a handler may resolve with: the task's result, which request() hands back to its caller. */
export type Reply = { n: number; sent: boolean };
/** One request: a put, then waiting until a worker's handler has finished that task; resolves with its result. */
export type Requester = (data: Payload) => Promise<unknown>;

/** A worker that has opened its connections but not yet taken a task. */
export interface PreparedWorker {
  /** Starts taking tasks. Separate from work() so connection set-up stays out of the timings. */
  start(): void;
  /** Stops taking tasks and lets in-flight handlers finish (the library's graceful close). */
  close(): Promise<void>;
}

export interface Adapter {
  /** One put, the library's usual way. */
  put(data: Payload): Promise<void>;
  /** One batch through the library's bulk call (putMany, addBulk, saveAll), optionally delayed. */
  putBulk(items: Payload[], delayMs?: number): Promise<void>;
  /** A put that must not store a second copy of the same payload (de-duplication). */
  putUnique(data: Payload): Promise<void>;
  putDelayed(data: Payload, delayMs: number): Promise<void>;
  /**
   * A debounced put: the task of `key` runs once puts of that key have stopped for `delayMs`, with
   * the latest data (docket onDuplicate 'debounce'; BullMQ deduplication with extend and replace).
   * Absent where the library has no such mode.
   */
  putDebounced?(data: Payload, key: string, delayMs: number): Promise<void>;
  /**
   * Readies a worker at `concurrency`; `handler` is called at the start of the library's async
   * handler, which resolves (acks) with what it returns as soon as it returns.
   */
  work(concurrency: number, handler: (data: Payload) => Reply | void): Promise<PreparedWorker>;
  /**
   * Readies a worker at `concurrency` whose handler is the module `file`, run in the library's
   * sandbox (docket: worker threads; BullMQ: child processes). Absent where there is none.
   */
  workSandboxed?(concurrency: number, file: string): Promise<PreparedWorker>;
  /**
   * Readies what waiting for results needs (BullMQ's QueueEvents, minimal's subscriber) before the
   * clock starts, and returns the request function; a request not answered within `timeoutMs`
   * rejects. A library without a reliable way to wait rejects here (bee-queue).
   */
  requests(timeoutMs: number): Promise<Requester>;
  /** Tasks stored and not finished: ready, delayed and active, as the library counts them. */
  count(): Promise<number>;
  close(): Promise<void>;
}

export type OpenAdapter = (url: string, queue: string) => Promise<Adapter>;

/** The id a de-duplicating put derives from the payload when the library needs one from us. */
export function payloadId(data: Payload): string {
  // Required lazily: only the adapters that need an id pay for loading crypto.
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  return createHash('sha1').update(JSON.stringify(data)).digest('hex');
}
