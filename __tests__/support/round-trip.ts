/**
 * What the tests of a caller's client (clients.test.ts for node-redis, ioredis.test.ts) check
 * through any client: a task's whole path through a scheduler, and the connections open under a
 * client name.
 */
import { randomBytes } from 'node:crypto';
import type { RedisClientType } from 'redis';
import type { Scheduler } from '../../lib';

/** Puts a task, claims it with a worker of its own and acks it: the whole path through one scheduler. */
export async function roundTrip(s: Scheduler): Promise<void> {
  const { hash } = await s.put({ n: randomBytes(4).toString('hex') }, { keepResult: { minutes: 1 } });
  let seen: (hash: string) => void = () => {};
  const claimed = new Promise<string>((resolve) => (seen = resolve));
  const worker = s.work(async (task) => {
    seen(task.hash);
    return { ok: true };
  });
  try {
    expect(await claimed).toBe(hash);
    expect(await s.result(hash, { wait: 5000 })).toMatchObject({ state: 'done', result: { ok: true } });
  } finally {
    await worker.close();
  }
}

/** How many connections the server has under `name` (CLIENT SETNAME, which a duplicate inherits). */
export async function connectionsNamed(raw: RedisClientType, name: string): Promise<number> {
  const list = String(await raw.sendCommand(['CLIENT', 'LIST']));
  return list.split('\n').filter((line) => line.includes(` name=${name} `)).length;
}
