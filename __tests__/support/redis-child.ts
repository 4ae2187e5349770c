/**
 * A process for the redis-guard test: starts a redis-server with startRedis, optionally crashes
 * and restarts it once (`restart`), prints `{ pids, dir }` as one JSON line on stdout, then waits
 * to be killed. The test kills it with SIGKILL, so nothing here ever stops the server.
 */
import { startRedis } from './redis-server';

async function main(): Promise<void> {
  const server = await startRedis();
  const pids = [server.pid];
  if (process.argv.includes('restart')) {
    await server.kill();
    await server.restart();
    pids.push(server.pid);
  }
  process.stdout.write(`${JSON.stringify({ pids, dir: server.dir })}\n`);
  // Kept alive on purpose: the server must outlive nothing but this process.
  setInterval(() => {}, 60_000);
}

void main();
