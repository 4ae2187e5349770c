// Run by .ci/pack-check inside the scratch project that installed the tarball, once per Node
// version: docket as an ES module user gets it (named imports through Node's CommonJS detection),
// then one round trip on a throwaway Redis that reads the installed lua/ and starts the installed
// sandbox thread (dist/features/sandbox-thread.js).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createScheduler, DocketError, ValidationError } from 'docket';

const namespace = await import('docket');
// One module, whichever way it is loaded: no second copy of each error class (instanceof holds).
assert.equal(namespace.createScheduler, createScheduler);
assert.equal(createRequire(import.meta.url)('docket').ValidationError, ValidationError);
assert.ok(new ValidationError('options.queue', 'bad') instanceof DocketError);

const url = process.env.DOCKET_PACK_REDIS_URL;
assert.ok(url, 'DOCKET_PACK_REDIS_URL is unset');

// The user's own client: node-redis 6, what `npm i redis` installs today (the scratch project
// installed it beside the tarball), on RESP3 by default. docket's own client package (node-redis
// 4's @redis/client, wherever npm placed it beside node-redis 6's) is not loaded for it.
const own = createRequire(import.meta.url);
const docketsClient = createRequire(own.resolve('docket')).resolve('@redis/client');
const loaded = () => docketsClient in own.cache;
const { createClient } = await import('redis');
const client = createClient({ url });
client.on('error', () => {});
await client.connect();
const mine = await createScheduler({ client, prefix: `pack-own-${process.versions.node}`, onWarning: () => {} });
try {
  const { hash } = await mine.put({ own: true }, { keepResult: 60_000 });
  const worker = mine.work(async () => 'done through node-redis 6');
  const outcome = await mine.result(hash, { wait: 10_000 });
  await worker.close();
  assert.equal(outcome?.state, 'done', JSON.stringify(outcome));
} finally {
  await mine.close();
}
assert.ok(client.isOpen, "close() leaves the caller's client open");
await client.disconnect();
assert.equal(loaded(), false, "docket loaded its own client package for a caller's client");
// The throwaway server runs without AOF on purpose: its start-up warning is not news here.
const scheduler = await createScheduler({ url, prefix: `pack-${process.versions.node}`, onWarning: () => {} });
try {
  const first = await scheduler.put({ to: 'ada@example.com' }, { keepResult: 60_000 });
  const again = await scheduler.put({ to: 'ada@example.com' });
  assert.deepEqual([first.added, again.added, again.hash], [true, false, first.hash]);
  const worker = scheduler.work(async (task) => ({ sent: task.data.to }));
  const outcome = await scheduler.result(first.hash, { wait: 10_000 });
  await worker.close();
  assert.equal(outcome?.state, 'done', JSON.stringify(outcome));
  assert.deepEqual(outcome.result, { sent: 'ada@example.com' });

  const handler = path.join(process.cwd(), 'handler.cjs');
  writeFileSync(handler, 'module.exports = async (task) => ({ doubled: task.data.n * 2 });\n');
  const sandboxed = await scheduler.put({ n: 21 }, { queue: 'sandboxed', keepResult: 60_000 });
  const threads = scheduler.work(handler, { queue: 'sandboxed', sandbox: true });
  const computed = await scheduler.result(sandboxed.hash, { queue: 'sandboxed', wait: 10_000 });
  await threads.close();
  assert.equal(computed?.state, 'done', JSON.stringify(computed));
  assert.deepEqual(computed.result, { doubled: 42 });
} finally {
  await scheduler.close();
}
assert.equal(loaded(), true, 'docket opened its own connection without its client package');
console.log(`import('docket') on Node ${process.version}: named imports, one module instance, put/de-dup/work/result and a sandboxed handler on Redis, a node-redis 6 client of its own`);
