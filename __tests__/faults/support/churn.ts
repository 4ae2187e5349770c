/**
 * The parent side of churn-child.ts: processes that open and close schedulers in a loop. Churn
 * starts them, tracks every put they report in the lab's History, collects their cycle reports,
 * and records every exit it did not ask for, with the tail of the process's stderr (an uncaught
 * exception prints its stack there). A process that exits unasked is started again under a new
 * name, so the churn goes on and every exit of the run is counted, not just the first.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { childModule } from '../../support/children';
import type { History } from './checker';
import type { ChurnConfig, ChurnMessage, ChurnRequest, CycleReport } from './churn-child';
import { ChildError, ready } from './workers';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CHILD = path.join(__dirname, 'churn-child.ts');

/** An exit nobody asked for. */
export interface Exit {
  name: string;
  pid: number;
  code: number | null;
  signal: string | null;
  /** The lines of its stderr that name an error, or its last lines. */
  stderr: string;
}

/** A cycle report, with the process that sent it and when it came. */
export interface Cycle extends CycleReport {
  name: string;
  at: number;
}

interface Running {
  name: string;
  proc: ChildProcess;
  stderr: string;
  stopped: Promise<void>;
}

export class Churn {
  readonly cycles: Cycle[] = [];
  readonly exits: Exit[] = [];
  /** Longest time a process went without reporting a cycle (from its start or its last report). */
  maxGapMs = 0;
  private readonly running = new Set<Running>();
  /** Labels sent but not yet answered, and whether a fault was on when they were sent. */
  private readonly unanswered = new Map<string, boolean>();
  private readonly respawns: Array<Promise<unknown>> = [];
  private stopping = false;
  private generation = 0;

  constructor(
    private readonly base: Omit<ChurnConfig, 'name'>,
    private readonly history: History,
    /** Whether a fault is on now: an error then is an unknown outcome, not a bug. */
    private readonly disturbed: () => boolean,
  ) {}

  async start(count: number): Promise<void> {
    await Promise.all(Array.from({ length: count }, () => this.spawn()));
  }

  /** Processes running now. */
  get live(): number {
    return this.running.size;
  }

  /** Asks every process to close its scheduler at once (one that is between schedulers closes the next one as soon as it is open). */
  closeNow(): void {
    for (const r of this.running) send(r.proc, { type: 'close-now' });
  }

  /**
   * Asks every process to close and exit, and waits for each to say `stopped` and exit with 0.
   * Rejects if one does not within `timeoutMs`; returns how long the slowest took.
   */
  async stop(timeoutMs: number): Promise<number> {
    this.stopping = true;
    await Promise.allSettled(this.respawns);
    const started = Date.now();
    const all = Promise.all([...this.running].map((r) => (send(r.proc, { type: 'stop' }), r.stopped)));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`churn processes did not stop within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([all, late]);
    } finally {
      clearTimeout(timer);
      this.settleUnanswered();
    }
    return Date.now() - started;
  }

  /** Teardown: SIGKILL whatever is left. */
  async killAll(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled(this.respawns);
    await Promise.all(
      [...this.running].map((r) => {
        const gone = new Promise((resolve) => r.proc.once('exit', resolve));
        r.proc.kill('SIGKILL');
        return gone;
      }),
    );
  }

  private async spawn(): Promise<void> {
    const name = `t11-c${this.generation++}`;
    const config: ChurnConfig = { ...this.base, name };
    const child = childModule(CHILD);
    const proc = fork(child.module, [JSON.stringify(config)], {
      cwd: ROOT,
      execArgv: child.execArgv,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const stopped = new Promise<void>((resolve, reject) =>
      proc.once('exit', (code, signal) => (this.stopping && code === 0 ? resolve() : reject(new Error(`${name} exited with ${code ?? signal}`)))),
    );
    stopped.catch(() => {}); // an exit during the run is recorded by onExit; stop() reports its own
    const r: Running = { name, proc, stderr: '', stopped };
    proc.stderr!.on('data', (chunk: Buffer) => (r.stderr = (r.stderr + chunk.toString()).slice(-8000)));
    let last = Date.now();
    proc.on('message', (msg: ChurnMessage) => {
      if (msg.type !== 'cycle') return this.onPut(msg);
      this.maxGapMs = Math.max(this.maxGapMs, Date.now() - last);
      last = Date.now();
      this.cycles.push({ ...msg.cycle, name, at: last });
    });
    proc.once('exit', (code, signal) => this.onExit(r, code, signal));
    this.running.add(r);
    await ready(proc);
    last = Date.now();
  }

  /** Records an exit nobody asked for, and starts another process in its place. */
  private onExit(r: Running, code: number | null, signal: string | null): void {
    this.running.delete(r);
    if (this.stopping && code === 0) return;
    this.exits.push({ name: r.name, pid: r.proc.pid!, code, signal, stderr: errorLines(r.stderr) });
    if (this.stopping) return;
    const respawn = this.spawn().catch((err: unknown) => {
      this.exits.push({ name: `${r.name}'s successor`, pid: 0, code: null, signal: null, stderr: String(err) });
    });
    this.respawns.push(respawn);
  }

  private onPut(msg: ChurnMessage): void {
    if (msg.type === 'putting') for (const label of msg.labels) this.unanswered.set(label, this.disturbed());
    if (msg.type !== 'put') return;
    msg.labels.forEach((label, i) => {
      const disturbed = this.unanswered.get(label) || this.disturbed();
      this.unanswered.delete(label);
      if (msg.hashes) this.history.ok(label, msg.hashes[i]);
      else this.history.error(label, new ChildError(msg.error!), disturbed);
    });
  }

  /** Puts whose process died before answering: their outcome is unknown. */
  private settleUnanswered(): void {
    for (const label of this.unanswered.keys()) this.history.error(label, new Error('its process exited before the put settled'), true);
    this.unanswered.clear();
  }
}

function send(proc: ChildProcess, msg: ChurnRequest): void {
  if (proc.connected) proc.send(msg, () => {}); // a process that just died cannot be told anything
}

/** The first line naming an error (an uncaught exception's message) and the frames after it, else the last lines. */
function errorLines(stderr: string): string {
  const lines = stderr.split('\n');
  const at = lines.findIndex((line) => /Error\b/.test(line));
  return (at >= 0 ? lines.slice(at, at + 3) : lines.slice(-5)).join('\n').trim();
}
