/**
 * The parent side of worker-child.ts: fork worker (or producer) processes, crash them (SIGKILL),
 * pause them (SIGSTOP/SIGCONT), ask them to put, measure their heap, and close them. A pool keeps
 * track of every process it started so that a test's teardown can kill them all: no orphan may
 * outlive the test (children also exit by themselves when the parent goes away).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { childModule } from '../../support/children';
import type { Json, PutOptions, PutResult } from '../../../lib';

/** What a child does; sent to it as JSON in argv. */
export interface ChildConfig {
  /** The queue Redis, possibly through a proxy. */
  url: string;
  prefix: string;
  queue: string;
  oracleUrl: string;
  /** Names this scenario run's oracle keys. */
  run: string;
  /** The scheduler's commandTimeout (ms); lib's default when absent. */
  commandTimeoutMs?: number;
  /** Added to Date.now in the child, before lib is loaded. */
  clockShiftMs?: number;
  /** Run scheduler.work(); without it the child is only a producer. */
  work?: WorkConfig;
}

export interface WorkConfig {
  concurrency: number;
  leaseMs: number;
  /** Each handler takes a uniform random time in [min, max] ms. */
  workMs: [number, number];
  /** Also record handler starts (one more oracle write per task). */
  recordStarts?: boolean;
  /** Read the queue Redis's TIME as each handler starts and as its work ends. */
  readServerTime?: boolean;
  /**
   * Outcomes: the handler reports progress (at its start, awaited, then every few ms), records
   * what a re-delivery sees of an earlier attempt's progress, and returns `{ label }` as its result.
   */
  outcomes?: boolean;
  /** work()'s heartbeatDeadline, when not the default. */
  heartbeatDeadlineMs?: number;
  /** Every retry this long after a failure (work()'s backoff), when not the default back-off. */
  backoffMs?: number;
}

export type ChildRequest =
  { type: 'put'; id: number; items: Array<{ data: Json; options?: PutOptions }> } | { type: 'now'; id: number } | { type: 'heap'; id: number } | { type: 'close'; id: number };

export type ChildReply = { type: 'ready' } | { type: 'reply'; id: number; value?: unknown; error?: WireError };

/** An error that crossed the process boundary: `docket` says whether it was a DocketError. */
export interface WireError {
  docket: boolean;
  code?: string;
  name: string;
  message: string;
}

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CHILD = path.join(__dirname, 'worker-child.ts');
/** ts-node needs a second or two per process on a busy 2-core machine. */
const START_TIMEOUT_MS = 30_000;

/** An error as plain data for IPC; `docket` says whether it was a DocketError (the child knows its own lib). */
export function wireError(err: unknown, docket: boolean): WireError {
  const e = err as { code?: unknown; name?: unknown; message?: unknown };
  return { docket, code: typeof e?.code === 'string' ? e.code : undefined, name: String(e?.name ?? 'Error'), message: String(e?.message ?? err) };
}

/** An error rebuilt from a WireError, so callers can read `code` as on a local one. */
export class ChildError extends Error {
  readonly code?: string;
  readonly docket: boolean;

  constructor(wire: WireError) {
    super(`${wire.name}: ${wire.message}`);
    this.code = wire.code;
    this.docket = wire.docket;
  }
}

export class ChildWorker {
  readonly exited: Promise<void>;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(
    private readonly proc: ChildProcess,
    readonly config: ChildConfig,
  ) {
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    proc.on('message', (msg: ChildReply) => this.settle(msg));
    // A child that dies takes its unanswered requests with it.
    void this.exited.then(() => this.pending.forEach((p) => p.reject(new Error(`worker ${this.pid} exited`))));
  }

  get pid(): number {
    return this.proc.pid!;
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  put(items: Array<{ data: Json; options?: PutOptions }>): Promise<PutResult[]> {
    return this.request({ type: 'put', items }) as Promise<PutResult[]>;
  }

  /** The child's Date.now(), to check a clock shift took. */
  now(): Promise<number> {
    return this.request({ type: 'now' }) as Promise<number>;
  }

  /** Heap used after a full GC (the child runs with --expose-gc). */
  heap(): Promise<number> {
    return this.request({ type: 'heap' }) as Promise<number>;
  }

  /** Graceful: work() stops claiming and finishes what it holds, then the process exits. */
  async close(): Promise<void> {
    await this.request({ type: 'close' });
    await this.exited;
  }

  /** A crash: no ack, no goodbye. Resolves once the process is gone. */
  async kill(): Promise<void> {
    if (this.alive) this.proc.kill('SIGKILL');
    await this.exited;
  }

  pause(): void {
    this.proc.kill('SIGSTOP');
  }

  resume(): void {
    this.proc.kill('SIGCONT');
  }

  private request(msg: { type: ChildRequest['type']; items?: unknown }): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.alive) return reject(new Error(`worker ${this.pid} exited`));
      this.pending.set(id, { resolve, reject });
      this.proc.send({ ...msg, id });
    });
  }

  private settle(msg: ChildReply): void {
    if (msg.type !== 'reply') return;
    const p = this.pending.get(msg.id);
    this.pending.delete(msg.id);
    if (msg.error) p?.reject(new ChildError(msg.error));
    else p?.resolve(msg.value);
  }
}

/** Starts children from one base config and kills whatever is left at teardown. */
export class WorkerPool {
  private readonly children = new Set<ChildWorker>();

  constructor(private readonly base: ChildConfig) {}

  /** Forks a child and waits until it is connected (and working, if it has `work`). */
  async spawn(overrides: Partial<ChildConfig> = {}): Promise<ChildWorker> {
    const config = { ...this.base, ...overrides };
    const compiled = childModule(CHILD);
    const proc = fork(compiled.module, [JSON.stringify(config)], {
      cwd: ROOT,
      execArgv: [...compiled.execArgv, '--expose-gc'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const child = new ChildWorker(proc, config);
    this.children.add(child);
    void child.exited.then(() => this.children.delete(child));
    await ready(proc);
    return child;
  }

  /** Children still running (paused ones included). */
  get live(): ChildWorker[] {
    return [...this.children].filter((c) => c.alive);
  }

  /** Teardown: SIGKILL works on paused processes too. */
  async killAll(): Promise<void> {
    await Promise.all([...this.children].map((c) => c.kill()));
  }
}

/** Waits for a forked child's `ready` message; kills it if it exits or takes too long first. */
export function ready(proc: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    proc.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const timer = setTimeout(() => fail(`did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      proc.kill('SIGKILL');
      reject(new Error(`worker-child ${why}:\n${stderr}`));
    };
    const onExit = (code: number | null, signal: string | null) => fail(`exited (${code ?? signal}) while starting`);
    proc.once('exit', onExit);
    proc.on('message', (msg: ChildReply) => {
      if (msg.type !== 'ready') return;
      clearTimeout(timer);
      proc.off('exit', onExit);
      resolve();
    });
  });
}
