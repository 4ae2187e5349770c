/**
 * "minimal": the smallest reliable queue on node-redis v4 that we could write, as a floor
 * reference for what one script call per operation costs on this machine (not a target, and not
 * a library: no retries, no lease renewal, no reaper for lapsed leases).
 *
 * Keys, all under one hash tag:
 *   jobs     HASH  id -> payload (a task lives here from put to ack, whatever its state)
 *   ready    LIST  ids; head = next
 *   delayed  ZSET  id, score = run-at (ms, Redis clock); promoted to ready by claim
 *   leases   ZSET  id, score = lease end (ms)
 * One script call per put (HSET + RPUSH), per claim (LPOP + ZADD) and per ack (ZREM + HDEL). An
 * idle worker polls every millisecond: the simplest wait that still picks tasks up quickly. A
 * handler's result, when it returns one, is published by the ack (channel `replies`) to the
 * requesters, who subscribe once per process and match replies by task id.
 */
import { randomBytes } from 'node:crypto';
import { createClient, defineScript } from 'redis';
import { payloadId, type Adapter, type OpenAdapter, type Payload } from './adapter';

const LEASE_MS = 30_000;
const POLL_MS = 1;

const put = defineScript({
  NUMBER_OF_KEYS: 3,
  // KEYS: jobs, ready, delayed. ARGV: id, payload, delay (ms), unique (1: keep a live copy).
  SCRIPT: `
    if ARGV[4] == '1' then
      if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
    else
      redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
    end
    local delay = tonumber(ARGV[3])
    if delay > 0 then
      local t = redis.call('TIME')
      redis.call('ZADD', KEYS[3], t[1] * 1000 + math.floor(t[2] / 1000) + delay, ARGV[1])
    else
      redis.call('RPUSH', KEYS[2], ARGV[1])
    end
    return 1`,
  transformArguments: (keys: string[], id: string, payload: string, delay: number, unique: boolean) => [...keys, id, payload, String(delay), unique ? '1' : '0'],
  transformReply: (reply: number) => reply,
});

const claim = defineScript({
  NUMBER_OF_KEYS: 4,
  // KEYS: jobs, ready, delayed, leases. ARGV: lease (ms). Returns { id, payload } or false.
  // Due delayed tasks move to ready first, at most 100 a call (unpack's stack limit).
  SCRIPT: `
    local t = redis.call('TIME')
    local now = t[1] * 1000 + math.floor(t[2] / 1000)
    local due = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 100)
    if #due > 0 then
      redis.call('RPUSH', KEYS[2], unpack(due))
      redis.call('ZREM', KEYS[3], unpack(due))
    end
    local id = redis.call('LPOP', KEYS[2])
    if not id then return false end
    redis.call('ZADD', KEYS[4], now + tonumber(ARGV[1]), id)
    return { id, redis.call('HGET', KEYS[1], id) }`,
  transformArguments: (keys: string[], lease: number) => [...keys, String(lease)],
  transformReply: (reply: [string, string] | null) => reply,
});

const ack = defineScript({
  NUMBER_OF_KEYS: 2,
  // KEYS: leases, jobs. ARGV: id, result ('' for none), replies channel. A lease that was lost
  // (removed) refuses the ack; a result goes to the channel as "<id>\n<result>".
  SCRIPT: `
    if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
    if ARGV[2] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[1] .. '\\n' .. ARGV[2]) end
    return redis.call('HDEL', KEYS[2], ARGV[1])`,
  transformArguments: (keys: string[], id: string, result: string, channel: string) => [...keys, id, result, channel],
  transformReply: (reply: number) => reply,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const open: OpenAdapter = async (url, queue) => {
  const client = createClient({ url, scripts: { put, claim, ack } });
  client.on('error', (err) => process.stderr.write(`minimal: ${err}\n`));
  await client.connect();
  const key = (name: string) => `min:{${queue}}:${name}`;
  const [jobs, ready, delayed, leases, replies] = ['jobs', 'ready', 'delayed', 'leases', 'replies'].map(key);
  // Ids need only be unique: a per-process prefix and a counter, no INCR round trip.
  const prefix = randomBytes(4).toString('hex');
  let seq = 0;
  const store = (data: Payload, delay: number, unique: boolean, id = unique ? payloadId(data) : `${prefix}${seq++}`) =>
    client.put([jobs, ready, delayed], id, JSON.stringify(data), delay, unique);
  const loops: Array<Promise<void>> = [];
  let subscriber: ReturnType<typeof client.duplicate> | undefined;
  let running = false;

  /** One slot: claim, run, then ack and claim the next in the same round trip. */
  async function loop(handler: (data: Payload) => unknown): Promise<void> {
    let acking: Promise<unknown> = Promise.resolve();
    while (running) {
      const [task] = await Promise.all([client.claim([jobs, ready, delayed, leases], LEASE_MS), acking]);
      if (!task) {
        await sleep(POLL_MS);
        acking = Promise.resolve();
        continue;
      }
      const result = await (async () => handler(JSON.parse(task[1])))();
      acking = client.ack([leases, jobs], task[0], result === undefined ? '' : JSON.stringify(result), replies);
    }
    await acking;
  }

  const adapter: Adapter = {
    put: async (data) => void (await store(data, 0, false)),
    // No bulk call: the puts are pipelined on the one connection, still one script call each.
    putBulk: async (items, delay = 0) => void (await Promise.all(items.map((data) => store(data, delay, false)))),
    putUnique: async (data) => void (await store(data, 0, true)),
    putDelayed: async (data, delay) => void (await store(data, delay, false)),
    async work(concurrency, handler) {
      return {
        start() {
          running = true;
          for (let i = 0; i < concurrency; i++) loops.push(loop(handler));
        },
        async close() {
          running = false;
          await Promise.all(loops.splice(0));
        },
      };
    },
    async requests(timeoutMs) {
      const waiting = new Map<string, (result: unknown) => void>();
      subscriber = client.duplicate();
      subscriber.on('error', (err) => process.stderr.write(`minimal: ${err}\n`));
      await subscriber.connect();
      await subscriber.subscribe(replies, (message) => {
        const cut = message.indexOf('\n');
        waiting.get(message.slice(0, cut))?.(JSON.parse(message.slice(cut + 1)));
      });
      return (data) => {
        const id = `${prefix}${seq++}`;
        // Waiting from before the put, so a reply cannot come first.
        const answered = new Promise<unknown>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`request ${id}: no result within ${timeoutMs} ms`)), timeoutMs);
          waiting.set(id, (result) => {
            clearTimeout(timer);
            resolve(result);
          });
        }).finally(() => waiting.delete(id));
        return Promise.all([answered, store(data, 0, false, id)]).then(([result]) => result);
      };
    },
    count: () => client.hLen(jobs),
    async close() {
      running = false;
      await Promise.all(loops.splice(0));
      await subscriber?.quit();
      await client.quit();
    },
  };
  return adapter;
};
