/**
 * The name of docket's connections (lib/redis/client-name.ts), on a redis-server of its own so that
 * every connection under docket's name is this file's: a scheduler's own connection and a worker's
 * blocking one carry `docket:<library>`; a caller's client keeps its name (or none), while the
 * blocking duplicate docket makes of it is docket's; a name given in clientOptions is kept; and an
 * ACL that refuses CLIENT SETNAME costs the name, not the connection.
 */
import { createClient, type RedisClientType } from 'redis';
import { createScheduler, type SchedulerOptions } from '../lib';
import { clientName, libraryOfClient } from '../lib/redis/client-name';
import { docketLibrary } from '../lib/redis/library';
import { eventually, uniquePrefix } from './support/harness';
import { startRedis, type RedisServer } from './support/redis-server';
import { connectionsNamed, roundTrip } from './support/round-trip';

let server: RedisServer;
let admin: RedisClientType;

beforeAll(async () => {
  server = await startRedis();
  admin = createClient({ url: server.url }) as RedisClientType;
  await admin.connect();
});

afterAll(async () => {
  await admin.disconnect();
  await server.stop();
});

/** A scheduler on this file's server; its close() goes with the test's end. */
async function scheduler(options: SchedulerOptions = {}) {
  return createScheduler({ url: server.url, prefix: uniquePrefix('name'), warnings: { aof: false }, onWarning: () => {}, ...options });
}

/** Runs a worker of `s` until `check` holds while it idles in BLPOP (on a connection of its own). */
async function whileIdle(s: Awaited<ReturnType<typeof scheduler>>, check: () => Promise<void>): Promise<void> {
  const worker = s.work(async () => {});
  try {
    await eventually(async () => String(await admin.sendCommand(['CLIENT', 'LIST'])).includes('cmd=blpop'));
    await check();
  } finally {
    await worker.close();
  }
}

describe("docket's connection name", () => {
  it("is docket: and this process's library", () => {
    expect(clientName()).toBe(`docket:${docketLibrary().name}`);
    expect(libraryOfClient(clientName())).toBe(docketLibrary().name);
    expect(libraryOfClient('my-app')).toBeNull();
  });

  it("is carried by a scheduler's own connection and by a worker's blocking one", async () => {
    const s = await scheduler();
    try {
      expect(await connectionsNamed(admin, clientName())).toBe(1);
      await whileIdle(s, async () => expect(await connectionsNamed(admin, clientName())).toBe(2));
    } finally {
      await s.close();
    }
    expect(await connectionsNamed(admin, clientName())).toBe(0);
  });

  it('is given again after a reconnect', async () => {
    const s = await scheduler();
    try {
      const line = String(await admin.sendCommand(['CLIENT', 'LIST']))
        .split('\n')
        .find((l) => l.includes(` name=${clientName()} `))!;
      await admin.sendCommand(['CLIENT', 'KILL', 'ID', /id=(\d+)/.exec(line)![1]]);
      // The connection comes back on its own (a call that was in flight may fail as of unknown outcome).
      await eventually(async () => (await connectionsNamed(admin, clientName())) === 1);
      expect(await s.stats()).toMatchObject({ ready: 0 });
    } finally {
      await s.close();
    }
  });

  it("is not given to a caller's client, only to the blocking duplicate docket makes of it", async () => {
    const mine = createClient({ url: server.url, name: 'my-app' }) as RedisClientType;
    const unnamed = createClient({ url: server.url }) as RedisClientType;
    await Promise.all([mine.connect(), unnamed.connect()]);
    try {
      for (const client of [mine, unnamed]) {
        const s = await scheduler({ client });
        try {
          await roundTrip(s);
          expect(await connectionsNamed(admin, clientName())).toBe(0);
          await whileIdle(s, async () => expect(await connectionsNamed(admin, clientName())).toBe(1));
        } finally {
          await s.close();
        }
      }
      expect(await mine.sendCommand(['CLIENT', 'GETNAME'])).toBe('my-app');
      expect(await unnamed.sendCommand(['CLIENT', 'GETNAME'])).toBeNull();
    } finally {
      await Promise.all([mine.disconnect(), unnamed.disconnect()]);
    }
  });

  it('leaves the name given in clientOptions, on every connection docket opens from them', async () => {
    const s = await scheduler({ clientOptions: { name: 'their-name' } });
    try {
      await whileIdle(s, async () => {
        expect(await connectionsNamed(admin, 'their-name')).toBe(2);
        expect(await connectionsNamed(admin, clientName())).toBe(0);
      });
    } finally {
      await s.close();
    }
  });

  it('costs only the name where the ACL refuses CLIENT SETNAME', async () => {
    await admin.sendCommand(['ACL', 'SETUSER', 'nameless', 'on', '>pw', '~*', '&*', '+@all', '-client|setname']);
    const url = server.url.replace('redis://', 'redis://nameless:pw@');
    // node-redis's own `name` option would fail the connect itself.
    await expect(createClient({ url, name: 'x', socket: { reconnectStrategy: false } }).connect()).rejects.toThrow(/NOPERM/);
    const s = await scheduler({ url });
    try {
      await roundTrip(s);
      await whileIdle(s, async () => expect(await connectionsNamed(admin, clientName())).toBe(0));
    } finally {
      await s.close();
    }
  });
});
