/**
 * MONITOR on a test's own redis-server: the commands it ran for `ms`, one line each, as Redis
 * prints them (`+<time> [<db> <client>] "<command>" ...`). Commands a script or function ran show
 * as `[<db> lua]`: `clientCommands` leaves them out, to count what clients sent.
 */
import net from 'node:net';
import { sleep } from './harness';

export async function monitor(port: number, ms: number): Promise<string[]> {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString()));
  socket.write('MONITOR\r\n');
  await sleep(ms);
  socket.destroy();
  return text.split('\r\n').filter((line) => line.startsWith('+') && line !== '+OK');
}

/** The lines of commands a client sent (not run by a script or function). */
export function clientCommands(lines: readonly string[]): string[] {
  return lines.filter((line) => !/^\+[\d.]+ \[\d+ lua\]/.test(line));
}
