/**
 * The plain commands of lib/ops/commands, on the test redis-server: each one's real reply (RESP2,
 * as docket reads) decoded to its typed value, the two ways to send (the scheduler's connection,
 * routed and within a deadline, and a connection of its own), and a ReplyError naming the command
 * for a reply of another shape: a real reply of another command, or a made-up one.
 */
import { randomBytes } from 'node:crypto';
import { ReplyError, TimeoutError } from '../lib/types/errors';
import { hget, hgetall, hscanFields, hset } from '../lib/ops/commands/hashes';
import { exists } from '../lib/ops/commands/keyspace';
import { functionDelete, functionList } from '../lib/ops/commands/functions';
import { blpop, clientId, clientNames, clientUnblock, configGet, time } from '../lib/ops/commands/server';
import { sadd, smembers, smismember, srem } from '../lib/ops/commands/sets';
import { latest, xinfoStream, xrange, xread, xrevrange } from '../lib/ops/commands/streams';
import { atNode, dedicated, routed, type Via } from '../lib/ops/commands/via';
import { clientName } from '../lib/redis/client-name';
import { zcard, zrange, zrangeWithScores } from '../lib/ops/commands/zsets';
import { connect, type Connection } from '../lib/redis/connection';
import type { Standalone } from '../lib/types/client';
import { callerClient, eventually, testUrl, uniquePrefix, useRedis } from './support/harness';

const redis = useRedis();
let conn: Connection;
let client: Awaited<ReturnType<typeof redis.raw>>;
/** A node-redis 4 client on RESP2, sent through as a connection of its own. */
let own: Via;

beforeAll(async () => {
  conn = await connect({ url: testUrl() });
  client = await redis.raw();
  own = dedicated(client as unknown as Standalone);
});
afterAll(() => conn.close());

/** The scheduler's way: routed by `key`, within a second. */
const via = (key: string): Via => routed(conn, key, { ms: 1000, what: 'test' });

/** What a call threw, or undefined: a decode's failure as a promise's rejection. */
const failure = (call: () => unknown): Promise<unknown> =>
  Promise.resolve()
    .then(call)
    .then(
      () => undefined,
      (err: unknown) => err,
    );

describe('hash commands', () => {
  it('set and read fields; a field named __proto__ is a field like any other', async () => {
    const key = `${uniquePrefix()}:h`;
    expect(await hset(via(key), key, 'a', '1')).toBe(1);
    expect(await hset(via(key), key, 'a', '2')).toBe(0);
    await hset(via(key), key, '__proto__', 'p');
    expect(await hget(via(key), key, 'a')).toBe('2');
    expect(await hget(via(key), key, 'missing')).toBeNull();
    const all = await hgetall(via(key), key);
    expect(all).toEqual(
      new Map([
        ['a', '2'],
        ['__proto__', 'p'],
      ]),
    );
    expect(all.get('constructor')).toBeUndefined();
    expect(await hgetall(via(key), `${key}:none`)).toEqual(new Map());
  });

  it('scan a hash step by step for the fields a pattern matches, to the cursor 0', async () => {
    const key = `${uniquePrefix()}:h`;
    await Promise.all(Array.from({ length: 3000 }, (_, i) => hset(via(key), key, `${i % 3 === 0 ? 'ab' : 'cd'}${i}`, 'v')));
    const found: string[] = [];
    let cursor = '0';
    let steps = 0;
    do {
      const page = await hscanFields(via(key), key, cursor, 'ab*', 50);
      found.push(...page.fields);
      cursor = page.cursor;
      steps++;
    } while (cursor !== '0');
    expect(steps).toBeGreaterThan(1);
    expect(new Set(found)).toEqual(new Set(Array.from({ length: 1000 }, (_, i) => `ab${i * 3}`)));
    expect(hscanFields.encode(key, '0', 'ab*', 50)).toEqual(['HSCAN', key, '0', 'MATCH', 'ab*', 'COUNT', '50']);
    expect(await failure(() => hscanFields.decode(['0']))).toBeInstanceOf(ReplyError);
  });
});

describe('set and key commands', () => {
  it('add, list, test and remove members; count the keys that exist', async () => {
    const key = `${uniquePrefix()}:s`;
    expect(await sadd(via(key), key, 'a', 'b')).toBe(2);
    expect(await sadd(via(key), key, 'a')).toBe(0);
    expect((await smembers(via(key), key)).sort()).toEqual(['a', 'b']);
    expect(await smismember(via(key), key, 'b', 'z', 'a')).toEqual([true, false, true]);
    expect(await srem(via(key), key, 'a', 'z')).toBe(1);
    expect(await smembers(via(key), `${key}:none`)).toEqual([]);
    expect(await exists(via(key), key, key, `${key}:none`)).toBe(2);
  });
});

describe('sorted set commands', () => {
  it('read members by rank, with their scores (the infinities too), and count them', async () => {
    const key = `${uniquePrefix()}:z`;
    await client.sendCommand(['ZADD', key, '1.5', 'a', 'inf', 'b', '-inf', 'c', '2', 'd']);
    expect(await zcard(via(key), key)).toBe(4);
    expect(await zrange(via(key), key, 0, 1)).toEqual(['c', 'a']);
    expect(await zrangeWithScores(via(key), key, 0, -1)).toEqual([
      ['c', -Infinity],
      ['a', 1.5],
      ['d', 2],
      ['b', Infinity],
    ]);
    expect(await zrangeWithScores(via(key), `${key}:none`, 0, -1)).toEqual([]);
    expect(await zcard(via(key), `${key}:none`)).toBe(0);
  });

  it('read WITHSCORES from a client on RESP3 too: pairs, scores as numbers', async () => {
    const key = `${uniquePrefix()}:z`;
    await client.sendCommand(['ZADD', key, '1.5', 'a', 'inf', 'b']);
    const resp3 = await callerClient('6');
    try {
      const reply = await dedicated(resp3.client as Standalone)(zrangeWithScores.encode(key, 0, -1));
      expect(reply).toEqual([
        ['a', 1.5],
        ['b', Infinity],
      ]);
      expect(zrangeWithScores.decode(reply)).toEqual([
        ['a', 1.5],
        ['b', Infinity],
      ]);
    } finally {
      await resp3.end();
    }
  });
});

describe('stream commands', () => {
  it('read entries forwards, backwards, the latest id, and across streams', async () => {
    const key = `${uniquePrefix()}:{q}:events`;
    const ids = [];
    for (const type of ['completed', 'failed', 'dead']) ids.push(await client.xAdd(key, '*', { type, id: 'h1' }));
    const entries = await xrange(via(key), key, '0');
    expect(entries.map((e) => [e.id, e.fields.get('type')])).toEqual([
      [ids[0], 'completed'],
      [ids[1], 'failed'],
      [ids[2], 'dead'],
    ]);
    expect(entries[0].at).toBe(Number(ids[0].split('-')[0]));
    expect((await xrevrange(via(key), key, 2)).map((e) => e.id)).toEqual([ids[2], ids[1]]);
    expect(await latest(via(key), key)).toBe(ids[2]);
    expect(await latest(via(key), `${key}:none`)).toBeNull();
    const other = key.replace('events', 'other');
    const read = await xread(
      via(key),
      [
        [key, ids[0]],
        [other, '0-0'],
      ],
      { count: 10 },
    );
    // A stream with nothing new is left out of the reply.
    expect([...read.keys()]).toEqual([key]);
    expect(read.get(key)!.map((e) => e.id)).toEqual([ids[1], ids[2]]);
    expect((await xread(via(key), [[key, ids[0]]], { count: 1 })).get(key)!.map((e) => e.id)).toEqual([ids[1]]);
  });

  it('reads none once a blocking read times out, on a connection of its own', async () => {
    const key = `${uniquePrefix()}:events`;
    expect(await xread(own, [[key, '$']], { count: 1, block: 20 })).toEqual(new Map());
  });

  it('tells how many entries a stream ever had and its oldest left, once trimmed', async () => {
    const key = `${uniquePrefix()}:events`;
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await client.xAdd(key, '*', { i: String(i) }));
    expect(await xinfoStream(via(key), key)).toEqual({ length: 3, entriesAdded: 3, recordedFirstEntryId: ids[0] });
    await client.sendCommand(['XTRIM', key, 'MAXLEN', '1']);
    expect(await xinfoStream(via(key), key)).toEqual({ length: 1, entriesAdded: 3, recordedFirstEntryId: ids[2] });
  });
});

describe('server commands', () => {
  it("read the server's clock in ms", async () => {
    const now = await time(via('any'));
    expect(Number.isInteger(now)).toBe(true);
    expect(Math.abs(now - Date.now())).toBeLessThan(5000);
  });

  it('read a config parameter, and none for an unknown one', async () => {
    const policy = await configGet(via('any'), 'maxmemory-policy');
    expect([...policy.keys()]).toEqual(['maxmemory-policy']);
    expect(policy.get('maxmemory-policy')).toMatch(/^[a-z-]+$/);
    expect(await configGet(via('any'), 'no-such-parameter')).toEqual(new Map());
  });

  it('pop a value, or none once the time is up', async () => {
    const key = `${uniquePrefix()}:wake`;
    await client.rPush(key, 'token');
    expect(await blpop(own, key, 1)).toEqual([key, 'token']);
    expect(await blpop(own, key, 0.01)).toBeNull();
  });

  it('end a blocked wait from another connection by its CLIENT ID; an unblocked one is not let go', async () => {
    const key = `${uniquePrefix()}:wake`;
    const blocker = await conn.duplicate(key, 1000);
    try {
      const id = await clientId(dedicated(blocker));
      expect(Number.isInteger(id)).toBe(true);
      const popped = blpop(dedicated(blocker), key, 30);
      // Not let go until the BLPOP has reached the server.
      await eventually(() => clientUnblock(via(key), id));
      expect(await popped).toBeNull();
      expect(await clientUnblock(via(key), id)).toBe(false);
    } finally {
      await blocker.disconnect();
    }
  });

  it("list a master's Functions libraries by pattern, delete one, and list its connections' names", async () => {
    const masters = await conn.masters();
    expect(masters).toHaveLength(1);
    const node = atNode(masters[0], { ms: 1000, what: 'test' });
    const name = `t_${randomBytes(6).toString('hex')}`;
    const fns = [`${name}_a`, `${name}_b`].map((fn) => `redis.register_function('${fn}', function() return 1 end)`);
    await client.sendCommand(['FUNCTION', 'LOAD', `#!lua name=${name}\n${fns.join('\n')}`]);
    expect(await functionList(node, `${name}*`)).toEqual([{ name, functions: 2 }]);
    await functionDelete(node, name);
    expect(await functionList(node, `${name}*`)).toEqual([]);
    // docket's own connection carries docket's name; the raw client none.
    const names = await clientNames(node);
    expect(names).toContain(clientName());
    expect(names).toContain('');
  });

  it("routed, a call past its deadline is a TimeoutError named by the deadline's what", async () => {
    const key = `${uniquePrefix()}:wake`;
    const slow = await connect({ url: testUrl() });
    try {
      const err = await blpop(routed(slow, key, { ms: 50, what: 'idle wait' }), key, 1).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TimeoutError);
      expect((err as Error).message).toMatch(/^idle wait timed out after 50 ms/);
    } finally {
      await slow.close();
    }
  });
});

describe('a reply of another shape', () => {
  it("is a ReplyError naming the command: another command's real reply", async () => {
    const p = uniquePrefix();
    await client.sAdd(`${p}:set`, 'lone');
    await client.hSet(`${p}:hash`, 'f', 'v');
    const oddList = await client.sendCommand(['SMEMBERS', `${p}:set`]);
    const pairs = await client.sendCommand(['HGETALL', `${p}:hash`]);
    const integer = await client.sendCommand(['EXISTS', `${p}:set`]);
    const bulk = await client.sendCommand(['HGET', `${p}:hash`, 'f']);
    const nil = await client.sendCommand(['HGET', `${p}:hash`, 'none']);
    const cases: Array<[string, (reply: unknown) => unknown, unknown]> = [
      ['HGETALL', hgetall.decode, oddList],
      ['HGETALL', hgetall.decode, integer],
      ['HGET', hget.decode, pairs],
      ['HSET', hset.decode, bulk],
      ['SMEMBERS', smembers.decode, integer],
      ['SADD', sadd.decode, bulk],
      ['SREM', srem.decode, nil],
      ['SMISMEMBER', smismember.decode, pairs],
      ['EXISTS', exists.decode, pairs],
      ['ZCARD', zcard.decode, bulk],
      ['ZRANGE', zrange.decode, integer],
      ['ZRANGE', zrangeWithScores.decode, oddList],
      ['ZRANGE', zrangeWithScores.decode, pairs],
      ['XRANGE', xrange.decode, pairs],
      ['XREVRANGE', xrevrange.decode, integer],
      ['XREVRANGE', latest.decode, pairs],
      ['XREAD', xread.decode, pairs],
      ['XINFO STREAM', xinfoStream.decode, pairs],
      ['TIME', time.decode, pairs],
      ['CONFIG GET', configGet.decode, oddList],
      ['CLIENT ID', clientId.decode, bulk],
      ['CLIENT UNBLOCK', clientUnblock.decode, bulk],
      ['BLPOP', blpop.decode, oddList],
      ['FUNCTION LIST', functionList.decode, pairs],
      ['FUNCTION DELETE', functionDelete.decode, integer],
      ['CLIENT LIST', clientNames.decode, pairs],
    ];
    for (const [command, decode, reply] of cases) {
      const err = await failure(() => decode(reply));
      expect({ command, reply, err }).toEqual({ command, reply, err: expect.any(ReplyError) });
      expect(err).toMatchObject({ code: 'ERR_REPLY', script: command });
    }
  });

  it('is a ReplyError naming the command: made-up shapes', async () => {
    const cases: Array<[string, () => unknown]> = [
      ['HGETALL', () => hgetall.decode(['f', 7])],
      ['ZCARD', () => zcard.decode(-1)],
      ['ZRANGE', () => zrangeWithScores.decode([['a']])],
      ['ZRANGE', () => zrangeWithScores.decode([['a', 'lots']])],
      ['SMISMEMBER', () => smismember.decode([1, 2])],
      ['CLIENT UNBLOCK', () => clientUnblock.decode(2)],
      ['TIME', () => time.decode(['1700000000', '12', '3'])],
      ['TIME', () => time.decode(['1700000000', '-1'])],
      ['BLPOP', () => blpop.decode(['k', null])],
      ['XINFO STREAM', () => xinfoStream.decode(['length', 1, 'entries-added', 1, 'recorded-first-entry-id', 'soon'])],
      ['XREAD', () => xread.decode([['k', [['1-0', ['type']]]]])],
      ['FUNCTION LIST', () => functionList.decode([['library_name', 'x', 'functions']])],
      ['FUNCTION LIST', () => functionList.decode([['library_name', 'x', 'functions', 3]])],
    ];
    for (const [command, call] of cases) {
      const err = await failure(call);
      expect({ call: String(call), err }).toEqual({ call: String(call), err: expect.any(ReplyError) });
      expect(err).toMatchObject({ code: 'ERR_REPLY', script: command });
    }
  });
});
