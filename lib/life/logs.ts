/**
 * Task logs: lines a handler writes with task.log(), kept per task in the queue's `logs` hash by
 * log.lua under the same fencing as ack, in chunks so that a write costs the lines it adds and
 * drops, not the log (lua/include/logs.lua), capped per task (logMaxLines, logMaxBytes: the
 * oldest lines go first) and deleted with the task. A handler may log in a tight loop, so the
 * lines one task writes in one turn of the event loop go in one script call, and a task has at
 * most one call under way: lines written meanwhile go together in the next. The worker waits for
 * them before it acks or fails the task, after which they would be refused as stale.
 */
import type { Context } from '../redis/context';
import { isSealed, unseal, type Keyring } from '../domain/crypto';
import { parseRecord } from '../domain/payload';
import { LeaseLostError, PayloadTooLargeError, ValidationError } from '../types/errors';
import type { LogLine, Task } from '../types/task';
import { log } from '../ops/log';
import { logs } from '../ops/logs';

/** What an entry costs beyond its line's JSON: the 13-digit time, a space and the newline. */
const ENTRY_OVERHEAD = 15;

interface Pending {
  json: string;
  resolve: (stored: boolean) => void;
  reject: (err: unknown) => void;
}

/** The batched log writes of one task. */
export class LogWriter {
  private pending: Pending[] = [];
  /** The turn-end at which the gathered lines go (setImmediate), while one is set. */
  private gathering: { immediate: NodeJS.Immediate; done: Promise<void>; end: () => void } | null = null;
  private sending: Promise<void> | null = null;
  constructor(
    private readonly ctx: Context,
    private readonly task: Task<unknown>,
    /** A worker's: told of each refused write (a LeaseLostError) and each failed one. */
    private readonly onProblem?: (err: unknown) => void,
  ) {}

  /**
   * Checks `line` at once (throws: not a string, or alone over logMaxBytes), then resolves once
   * it is stored (true) or refused because the lease is lost (false). A handler may well not
   * await it: a rejection it leaves unhandled does not take the process down.
   */
  write(line: unknown): Promise<boolean> {
    if (typeof line !== 'string') throw new ValidationError('line', `expected a string, got ${line === null ? 'null' : typeof line}`);
    // Sealed when the scheduler encrypts: the caps then count the sealed line, as Redis holds it.
    const json = JSON.stringify(this.ctx.keyring ? this.ctx.keyring.seal(JSON.stringify(line)) : line);
    const bytes = Buffer.byteLength(json) + ENTRY_OVERHEAD;
    const limit = this.ctx.options.logMaxBytes;
    if (bytes > limit) throw new PayloadTooLargeError('line', bytes, limit, 'log line');
    const stored = new Promise<boolean>((resolve, reject) => this.pending.push({ json, resolve, reject }));
    stored.catch(() => {});
    this.schedule();
    return stored;
  }

  /** Waits until every line written so far is stored or refused. */
  async flush(): Promise<void> {
    while (this.sending || this.gathering || this.pending.length > 0) {
      await (this.sending ?? this.gathering?.done ?? this.storeBatch());
    }
  }

  /** Drops lines not yet sent (the task was handed back): their callers get false. */
  stop(): void {
    this.endGathering();
    for (const p of this.pending.splice(0)) p.resolve(false);
  }

  /** Lines go at the end of this turn, or once the call under way returns. */
  private schedule(): void {
    if (this.gathering || this.sending) return;
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    const immediate = setImmediate(() => {
      this.gathering = null;
      void this.storeBatch().then(end);
    });
    this.gathering = { immediate, done, end };
  }

  private endGathering(): void {
    if (!this.gathering) return;
    clearImmediate(this.gathering.immediate);
    this.gathering.end();
    this.gathering = null;
  }

  private async storeBatch(): Promise<void> {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    const { hash, token, queue } = this.task;
    const { logMaxLines, logMaxBytes } = this.ctx.options;
    const input = { id: hash, token, maxLines: logMaxLines, maxBytes: logMaxBytes, lines: kept(batch, logMaxLines, logMaxBytes) };
    this.sending = this.ctx.scripts.run(log, this.ctx.keys(queue), input).then(
      (stored) => {
        if (!stored) this.onProblem?.(new LeaseLostError(hash));
        batch.forEach((p) => p.resolve(stored));
      },
      (err: unknown) => {
        this.onProblem?.(err);
        batch.forEach((p) => p.reject(err));
      },
    );
    await this.sending;
    this.sending = null;
    if (this.pending.length > 0) this.schedule();
  }
}

/**
 * The newest lines of `batch` that fit the caps, as JSON: the older ones would be dropped by
 * log.lua at once, so they are not sent (a loop of 10,000 lines sends at most the last 100).
 */
function kept(batch: Pending[], maxLines: number, maxBytes: number): string[] {
  const out: string[] = [];
  let bytes = 0;
  for (let i = batch.length - 1; i >= 0 && out.length < maxLines; i--) {
    bytes += Buffer.byteLength(batch[i].json) + ENTRY_OVERHEAD;
    if (bytes > maxBytes) break;
    out.push(batch[i].json);
  }
  return out.reverse();
}

const writers = new WeakMap<Task<unknown>, LogWriter>();

/**
 * The log writer of `task` (one per task object, shared by task.log and scheduler.log), made on
 * the first line: a task that logs nothing costs nothing.
 */
export function logsOf(ctx: Context, task: Task<unknown>, onProblem?: (err: unknown) => void): LogWriter {
  let writer = writers.get(task);
  if (!writer) writers.set(task, (writer = new LogWriter(ctx, task, onProblem)));
  return writer;
}

/** Waits for `task`'s log writes, or null when it never logged (no await then). */
export function flushLogs(task: Task<unknown>): Promise<void> | null {
  return writers.get(task)?.flush() ?? null;
}

/** Drops `task`'s unsent log lines, if any (handed back unfinished). */
export function stopLogs(task: Task<unknown>): void {
  writers.get(task)?.stop();
}

/** The stored log of task `id` of `queue`, oldest line first; [] for none. One script call (lua/logs.lua). */
export async function readLogs(ctx: Context, queue: string, id: string): Promise<LogLine[]> {
  const chunks = await ctx.scripts.run(logs, ctx.keys(queue), { id });
  return chunks.flatMap(parseChunk).map((entry) => opened(ctx.keyring, entry));
}

/** A line as stored (sealed when written by a scheduler that encrypts), opened if this one can. */
function opened(keyring: Keyring | null, entry: LogLine): LogLine {
  if (!isSealed(entry.line)) return entry;
  const plain = unseal(keyring, entry.line, 'a log line', true);
  const line = plain === undefined ? undefined : parseRecord<unknown>(plain, 'a log line');
  return typeof line === 'string' ? { at: entry.at, line } : { at: entry.at, line: 'encrypted', encrypted: true };
}

/** The lines of a stored chunk: entries '<at> <JSON string>\n' (see lua/include/logs.lua). */
function parseChunk(raw: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const entry of raw.split('\n')) {
    const space = entry.indexOf(' ');
    if (space < 0) continue;
    try {
      const line: unknown = JSON.parse(entry.slice(space + 1));
      if (typeof line === 'string') lines.push({ at: Number(entry.slice(0, space)), line });
    } catch {
      // Not written by log.lua: left out rather than failing the whole read.
    }
  }
  return lines;
}
