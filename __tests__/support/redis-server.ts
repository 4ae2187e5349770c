/**
 * Starts a throwaway redis-server from PATH on a free loopback port, with its own temp dir and no
 * persistence, and stops it by its pid. Used by jest's global setup, by the demo and by the fault
 * suite, which also kills, pauses and restarts it: a restart reuses the port and the dir, so a
 * server started with `--appendonly yes` reloads its data the way a crashed production one would.
 *
 * Every server has a guard: a tiny node process that removes the server and its dir when the
 * process that started it dies without stop(), even by SIGKILL, which runs no exit handler.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';

export interface RedisServer {
  url: string;
  port: number;
  /** The pid of the current process; a restart changes it. */
  pid: number;
  dir: string;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s) and removes the dir. */
  stop(): Promise<void>;
}

/** Where to run: a fixed port or dir instead of fresh ones (the caller then owns the dir). */
export interface StartOptions {
  port?: number;
  dir?: string;
}

/** A server the fault suite can break: crash, pause and bring back on the same port and dir. */
export interface ControlledRedis extends RedisServer {
  /** The arguments after the defaults, as given to startRedis; a restart uses them again. */
  readonly args: readonly string[];
  /** Whether a process is running (possibly paused). */
  readonly running: boolean;
  /** Sends a signal to the current process: SIGSTOP/SIGCONT pause and resume it. */
  signal(sig: NodeJS.Signals): void;
  /** SIGKILL, as a crash: no shutdown save, no goodbye to clients. Resolves once it is gone. */
  kill(): Promise<void>;
  /** A clean shutdown that keeps the dir (SIGTERM makes Redis flush its AOF). */
  halt(): Promise<void>;
  /** Starts a new process on the same port and dir with the same arguments; waits until ready. */
  restart(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startRedis(extraArgs: string[] = [], options: StartOptions = {}): Promise<ControlledRedis> {
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), 'docket-redis-'));
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extraArgs];
  const guard = startGuard(dir);
  let child = await launch(args, guard).catch((err) => {
    guard.end(); // no server to keep: the guard removes the dir
    throw err;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    args: [...extraArgs],
    get pid() {
      return child.pid!;
    },
    get running() {
      return isRunning(child);
    },
    signal(sig) {
      if (isRunning(child)) child.kill(sig);
    },
    async kill() {
      if (!isRunning(child)) return;
      const exited = onExit(child);
      child.kill('SIGKILL');
      await exited;
    },
    halt: () => stopPid(child),
    async restart() {
      if (isRunning(child)) throw new Error(`redis-server ${child.pid} is still running: kill() or halt() it first`);
      child = await launch(args, guard);
    },
    async stop() {
      await stopPid(child);
      rmSync(dir, { recursive: true, force: true });
      guard.end();
    },
  };
}

async function launch(args: string[], guard: Writable): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Told at once, not once ready: the parent may die while the server loads its data.
  guard.write(`${child.pid}\n`);
  // A pid that exited may be reused by an unrelated process, which the guard must not kill.
  child.once('exit', () => guard.write('\n'));
  await waitReady(child);
  return child;
}

/**
 * The guard reads the server's current pid, one line per change (an empty line: none), on a pipe
 * from this process. The pipe closes when this process ends, however it ends, and that is the
 * only signal a SIGKILLed process still gives. It is plain JavaScript run with `node -e`, so it
 * needs no file and works the same from ts-node, ts-jest and the compiled children.
 */
const GUARD = `
  const dir = process.argv[1];
  let pid = 0, pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (text) => {
    const lines = (pending + text).split('\\n');
    pending = lines.pop();
    if (lines.length) pid = Number(lines[lines.length - 1]);
  });
  const clean = () => {
    if (pid) try { process.kill(pid, 'SIGKILL'); } catch {}
    // Retries: a server killed while writing (AOF, nodes.conf) may add a file during the removal.
    require('node:fs').rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    process.exit(0);
  };
  process.stdin.on('end', clean);
  process.stdin.on('error', clean);
`;

function startGuard(dir: string): Writable {
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // e.g. a ts-node loader: the guard needs none, and starts faster without
  const guard = spawn(process.execPath, ['-e', GUARD, dir], {
    // Its own process group: a Ctrl-C or a kill of this process's group must not take the guard
    // down before it has cleaned up.
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env,
  });
  // Neither the guard nor its pipe may keep this process alive: the demo and the benches exit when done.
  guard.unref();
  (guard.stdin as unknown as Socket).unref();
  guard.on('error', () => {}); // without node the servers are simply unguarded, as before
  guard.stdin!.on('error', () => {}); // a guard gone early must not crash the tests
  return guard.stdin!;
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function onExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function waitReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`redis-server did not start in 10 s:\n${out}`)), 10_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    child.once('error', (err) => fail(new Error(`cannot run redis-server (is it on PATH?): ${err.message}`)));
    const exited = (code: number | null) => fail(new Error(`redis-server exited with ${code}:\n${out}`));
    child.once('exit', exited);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // Printed after the data set (RDB or AOF) is loaded, so a restarted server is whole by then.
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.removeListener('exit', exited);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        child.stderr!.resume();
        resolve();
      }
    });
  });
}

async function stopPid(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return;
  const exited = onExit(child);
  child.kill('SIGTERM');
  // A paused (SIGSTOPped) server would only see the SIGTERM once resumed.
  child.kill('SIGCONT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
