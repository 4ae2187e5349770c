/**
 * The one interface every library runs the benchmark through, so each scenario is written once
 * and the libraries differ only in how they map these calls onto their own API.
 */
export type Payload = { to: string; template: string; n: number };

export interface Adapter {
  /** One put, the library's usual way. */
  put(data: Payload): Promise<void>;
  /** One batch, the library's bulk call (putMany, addBulk, saveAll). */
  putBulk(items: Payload[]): Promise<void>;
  /** A put that must not store a second copy of the same payload (de-duplication). */
  putUnique(data: Payload): Promise<void>;
  putDelayed(data: Payload, delayMs: number): Promise<void>;
  /** Starts a worker; `handler` runs synchronously inside the library's async handler. */
  work(concurrency: number, handler: (data: Payload) => void): Promise<{ close(): Promise<void> }>;
  /** Tasks waiting to run (ready plus delayed), as the library counts them. */
  pending(): Promise<number>;
  close(): Promise<void>;
}

export type OpenAdapter = (url: string, queue: string) => Promise<Adapter>;
