/**
 * The oracle: a Redis of its own (never the one under test) where worker processes write down what
 * they did, and from which the test reads it back. Keeping it on another server means a fault
 * injected into the queue's Redis cannot lose or fake the evidence.
 *
 * Both sides (worker-child.ts writes, the scenarios read) use the names and record shapes here.
 */
import type { RedisClientType } from 'redis';

/** One run of a handler, as the worker process saw it. */
export interface Execution {
  /** The task id (put's hash). */
  hash: string;
  /** The producer's own name for the payload (`data.label`). */
  label: string;
  pid: number;
  attempt: number;
  /** The task's run-at, Redis clock. */
  runAt: number;
  /** The queue Redis's TIME when the handler started, if the worker was asked to read it. */
  serverNow?: number;
  /** When its lease began on the Redis clock (the claim's own now): leaseUntil − the lease. */
  claimedAt?: number;
  /** The queue Redis's TIME when the handler's work ended (before its ack), with readServerTime. */
  finishedAt?: number;
}

/** Something a worker's work() reported, or an abort of a handler's signal. */
export interface WorkerEvent {
  kind: 'error' | 'abort';
  /** The DocketError code, when there is one. */
  code?: string;
  /** The task concerned, when known (LeaseLostError carries it). */
  hash?: string;
  pid: number;
  message: string;
}

/** A progress write of `attempt` that Redis stored (task.progress resolved true). */
export interface Progressed {
  hash: string;
  attempt: number;
}

/** A re-delivered task's handler, as it started: the progress get() showed then. */
export interface Retried {
  hash: string;
  attempt: number;
  progress: { attempt: number; step: number } | null;
}

/** The oracle keys of one scenario run. */
export function oracleKeys(run: string) {
  return {
    /** LIST of Execution JSON, pushed when a handler starts. */
    starts: `oracle:${run}:starts`,
    /** LIST of Execution JSON, pushed when a handler has done its work, before it returns (so before the ack). */
    execs: `oracle:${run}:exec`,
    /** Counter of `execs`, cheap to poll. */
    count: `oracle:${run}:count`,
    /** LIST of WorkerEvent JSON. */
    events: `oracle:${run}:events`,
    /** LIST of Progressed JSON: progress writes that Redis acknowledged (outcome workers). */
    progressed: `oracle:${run}:progressed`,
    /** LIST of Retried JSON: what a re-delivered task's handler saw of its progress (outcome workers). */
    retried: `oracle:${run}:retried`,
  };
}

/** Reads a whole list in pages, so a 100,000-entry list is no single huge reply. */
export async function readList<T>(client: RedisClientType, key: string): Promise<T[]> {
  const out: T[] = [];
  const page = 10_000;
  for (let start = 0; ; start += page) {
    const items = await client.lRange(key, start, start + page - 1);
    for (const item of items) out.push(JSON.parse(item) as T);
    if (items.length < page) return out;
  }
}

export async function executionCount(client: RedisClientType, run: string): Promise<number> {
  return Number((await client.get(oracleKeys(run).count)) ?? 0);
}
