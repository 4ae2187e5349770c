/**
 * Runs one child (bench/child.ts) and answers its marks. The child runs on core 1 under taskset
 * when pinning is on: a round trip between cores is what a real deployment pays, and a fixed
 * placement keeps runs comparable (unpinned runs here are bimodal).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ChildMessage, ParentMessage, RunRequest } from './protocol';
import { callsBetween, type BenchRedis, type Snapshot } from './redis';
import type { Sample } from './report';

/** A child that takes longer is killed and its run recorded as an error. */
const CHILD_LIMIT_MS = 5 * 60_000;

/** The child running now, so an interrupted benchmark can stop it by its pid. */
let current: ChildProcess | undefined;

export function killCurrentChild(): void {
  if (current && current.exitCode === null && current.signalCode === null) current.kill('SIGKILL');
}

export function runChild(redis: BenchRedis, req: RunRequest, pin: boolean, round: number): Promise<Sample> {
  const node = [process.execPath, '-r', 'ts-node/register/transpile-only', path.join(__dirname, 'child.ts')];
  const [cmd, ...args] = pin ? ['taskset', '-c', '1', ...node] : node;
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  current = child;
  const base: Pick<Sample, 'library' | 'scenario' | 'round' | 'calls' | 'redisCpuUs'> = { library: req.library, scenario: req.scenario, round };
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  let start: Snapshot | undefined;
  let sample: Sample | undefined;
  let failure: string | undefined;
  const answer = (m: ParentMessage) => child.connected && child.send(m);

  child.on('message', (msg: ChildMessage) => {
    if (msg.type === 'mark') {
      void redis.snapshot(msg.at).then(
        (snap) => {
          if (msg.at === 'start') start = snap;
          else if (start) {
            base.calls = callsBetween(start, snap, redis.infoCallsPerSnapshot);
            base.redisCpuUs = Math.round((snap.cpu - start.cpu) * 1e6);
          }
          answer({ type: 'marked', usedMemory: snap.usedMemory });
        },
        (err) => (failure = `snapshot: ${err.message}`),
      );
    } else if (msg.type === 'result') sample = { ...base, measure: msg.measure };
    else failure = msg.message;
  });

  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      failure = `no result within ${CHILD_LIMIT_MS / 60_000} min`;
      child.kill('SIGKILL');
    }, CHILD_LIMIT_MS);
    child.on('spawn', () => answer(req));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (sample && !failure) return resolve(sample);
      const lastLine = output.trim().split('\n').filter(Boolean).pop();
      resolve({ ...base, error: (failure ?? lastLine ?? `exit ${code ?? signal}`).slice(0, 160) });
    });
  });
}
