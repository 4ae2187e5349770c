/**
 * The benchmark's own Redis: a throwaway redis-server (no persistence) pinned to core 0 when the
 * machine allows, plus the parent's admin connection, which flushes between runs and takes the
 * INFO snapshots (command counts, memory, CPU) that bracket each timed part.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { createClient } from 'redis';
import { startRedis, type RedisServer } from '../__tests__/support/redis-server';

/** Pinning needs taskset and a spare core for the benchmark process. */
export function canPin(): boolean {
  if (os.cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Redis's per-command call counts (`cmdstat_<name>:calls=`), used_memory and CPU time, at one moment. */
export interface Snapshot {
  calls: Record<string, number>;
  usedMemory: number;
  /** CPU seconds (user + sys) of redis-server's main thread, or of the whole process on a Redis without the `_main_thread` fields. */
  cpu: number;
}

/** User + sys CPU seconds from `INFO cpu`: the main thread's where INFO has those fields, else the whole process's. */
export function cpuSeconds(info: string): number {
  const field = (name: string) => {
    const m = new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info);
    return m ? Number(m[1]) : undefined;
  };
  const sys = field('used_cpu_sys_main_thread');
  const user = field('used_cpu_user_main_thread');
  if (sys !== undefined && user !== undefined) return sys + user;
  return field('used_cpu_sys')! + field('used_cpu_user')!;
}

export interface BenchRedis {
  url: string;
  pid: number;
  version: string;
  flush(): Promise<void>;
  /**
   * INFO commandstats, memory and cpu. The CPU reading comes last at the start of a timed part and
   * first at its end, so the other two INFO calls' own work stays outside the CPU delta.
   */
  snapshot(at: 'start' | 'end'): Promise<Snapshot>;
  /** INFO calls the snapshots issue: each shows up in the next snapshot's counts. */
  readonly infoCallsPerSnapshot: number;
  stop(): Promise<void>;
}

export async function startBenchRedis(pin: boolean): Promise<BenchRedis> {
  // startRedis already passes --save '' --appendonly no and a free loopback port.
  const server: RedisServer = await startRedis();
  try {
    // -a: every thread of redis-server (the main one and its background I/O threads).
    if (pin) execFileSync('taskset', ['-a', '-p', '-c', '0', String(server.pid)], { stdio: 'ignore' });
    const admin = createClient({ url: server.url });
    admin.on('error', () => {}); // a failed command still rejects; this only keeps the process up
    await admin.connect();
    const version = /redis_version:(\S+)/.exec(await admin.info('server'))![1];
    return {
      url: server.url,
      pid: server.pid,
      version,
      flush: async () => void (await admin.flushAll()),
      // Every snapshot issues the same three, so between two commandstats readings there are always three.
      infoCallsPerSnapshot: 3,
      async snapshot(at) {
        const cpuFirst = at === 'end' ? await admin.info('cpu') : undefined;
        const stats = await admin.info('commandstats');
        const memory = await admin.info('memory');
        const cpu = cpuFirst ?? (await admin.info('cpu'));
        const calls: Record<string, number> = {};
        for (const m of stats.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) calls[m[1]] = Number(m[2]);
        return { calls, usedMemory: Number(/used_memory:(\d+)/.exec(memory)![1]), cpu: cpuSeconds(cpu) };
      },
      async stop() {
        await admin.disconnect().catch(() => {});
        await server.stop();
      },
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** Calls made between two snapshots, less the snapshots' own INFO calls. */
export function callsBetween(before: Snapshot, after: Snapshot, infoCalls: number): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, calls] of Object.entries(after.calls)) {
    const d = calls - (before.calls[name] ?? 0) - (name === 'info' ? infoCalls : 0);
    if (d > 0) delta[name] = d;
  }
  return delta;
}
