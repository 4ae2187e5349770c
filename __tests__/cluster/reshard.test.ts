/**
 * Resharding (issue 5): the slot that holds a busy queue is moved to another master with
 * `redis-cli --cluster reshard` while producers put and a worker runs. Must hold: nothing is lost
 * (every answered put runs), every error a caller saw is typed, and the queue ends on the new
 * master.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createScheduler, DocketError, type Scheduler, type Task } from '../../lib';
import { slotOf } from '../../lib/redis/connection';
import { type TestCluster, useCluster } from '../support/cluster';
import { eventually, sleep, uniquePrefix } from '../support/harness';

const run = promisify(execFile);
/** Slots moved: the first ones of the source master, which include the queue's. */
const MOVED_SLOTS = 20;

const clusterOf = useCluster();
let cluster: TestCluster;
beforeAll(() => void (cluster = clusterOf()));

it('loses nothing while the slot of a busy queue moves to another master', async () => {
  // The source is the master of slot 0; the queue is one whose slot is among its first slots.
  const from = await cluster.masterOf(0);
  const to = await cluster.masterOf(16383);
  let queue = '';
  for (let i = 0; !queue; i++) if (slotOf(`{r${i}}`) < MOVED_SLOTS) queue = `r${i}`;
  const idOf = async (port: number) => String(await cluster.clients[cluster.nodes.findIndex((n) => n.port === port)].sendCommand(['CLUSTER', 'MYID']));

  const prefix = uniquePrefix('rs');
  const open = () => createScheduler({ cluster: cluster.urls, prefix, queue, commandTimeout: 2000, onWarning: () => {} });
  const producer = await open();
  const consumer = await open();
  const answered = new Set<number>();
  const ran = new Map<number, number>();
  const untyped: unknown[] = [];
  const seen = new Map<string, number>(); // error codes callers saw, retried

  const worker = consumer.work(
    async (task: Task) => {
      const n = (task.data as { n: number }).n;
      ran.set(n, (ran.get(n) ?? 0) + 1);
    },
    { concurrency: 4, onError: (err) => void (err instanceof DocketError || untyped.push(err)) },
  );

  let stop = false;
  let next = 0;
  const produce = async (s: Scheduler) => {
    while (!stop) {
      const n = next++;
      for (;;) {
        try {
          await s.put({ n });
          answered.add(n);
          break;
        } catch (err) {
          if (err instanceof DocketError) seen.set(err.code, (seen.get(err.code) ?? 0) + 1);
          else untyped.push(err);
          await sleep(50);
        }
      }
      await sleep(1);
    }
  };
  const producing = Promise.all([produce(producer), produce(producer)]);
  await eventually(() => ran.size >= 200, 20_000);
  const before = answered.size;
  await run(
    'redis-cli',
    ['--cluster', 'reshard', `127.0.0.1:${from}`, '--cluster-from', await idOf(from), '--cluster-to', await idOf(to), '--cluster-slots', String(MOVED_SLOTS), '--cluster-yes'],
    { timeout: 60_000 },
  );
  const movedTo = await cluster.masterOf(slotOf(`{${queue}}`));
  await eventually(() => answered.size >= before + 300, 30_000);
  stop = true;
  await producing;
  await eventually(() => [...answered].every((n) => ran.has(n)), 30_000).catch(() => {});
  await worker.close();
  await producer.close();
  await consumer.close();

  const lost = [...answered].filter((n) => !ran.has(n));
  console.log(`[reshard] answered=${answered.size} ran=${ran.size} lost=${lost.length} errors=${JSON.stringify(Object.fromEntries(seen))} master=${from}->${movedTo}`);
  expect(movedTo).toBe(to);
  expect(untyped).toEqual([]);
  expect(lost).toEqual([]);
}, 180_000);
