/**
 * The test helpers' redis-servers die with the process that started them, however it dies: here
 * that process is SIGKILLed, so no stop(), exit handler or teardown ever runs.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { childModule } from './support/children';
import { eventually } from './support/harness';

const CHILD = path.join(__dirname, 'support', 'redis-child.ts');

interface Started {
  pids: number[];
  dir: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** Runs the child until it has printed its servers, SIGKILLs it, and returns what it printed. */
async function startAndKill(module: string, execArgv: string[], args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [...execArgv, module, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await eventually(() => out.includes('\n') || child.exitCode !== null, 15_000);
    expect(child.exitCode).toBeNull();
    const started = JSON.parse(out) as Started;
    // Checked while the child lives: once it is killed, the guard may remove the dir at once.
    expect(existsSync(started.dir)).toBe(true);
    expect(alive(started.pids[started.pids.length - 1])).toBe(true);
    return started;
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

async function expectCleanedUp({ pids, dir }: Started): Promise<void> {
  try {
    // Generous: the guard acts at once, but the killed server stays a zombie until init reaps it.
    await eventually(() => pids.every((pid) => !alive(pid)) && !existsSync(dir), 10_000).catch(() => {});
    expect(pids.filter(alive)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  } finally {
    // When the test fails, leave nothing behind either.
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('redis-server started by the test helpers', () => {
  it('dies with its dir when the process that started it is SIGKILLed', async () => {
    const { module, execArgv } = childModule(CHILD);
    await expectCleanedUp(await startAndKill(module, execArgv, []));
  }, 30_000);

  it('dies with its dir after a restart gave it a new pid', async () => {
    const { module, execArgv } = childModule(CHILD);
    const started = await startAndKill(module, execArgv, ['restart']);
    expect(started.pids[1]).not.toBe(started.pids[0]);
    await expectCleanedUp(started);
  }, 30_000);

  it('dies with its dir when the helper runs under ts-node, as in the demo and the benchmarks', async () => {
    await expectCleanedUp(await startAndKill(CHILD, ['-r', 'ts-node/register/transpile-only'], []));
  }, 30_000);
});
