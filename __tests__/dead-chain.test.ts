/**
 * A failure travels down a dependency chain with no worker running: the client whose call killed
 * the head (fail, cancel) goes on applying the steps, a batch a call, until the whole chain is dead
 * (docs/guarantees.md, "Dependencies in order, none lost"; docs/api.md, onDependencyFailure).
 */
import type { Scheduler } from '../lib';
import { eventually, useRedis } from './support/harness';

const redis = useRedis();
const LENGTH = 1000;

/** A chain of LENGTH tasks in `queue`, each after the one before; the head is `head` (of any queue). */
async function chain(s: Scheduler, queue: string, head: { queue: string; hash: string }): Promise<string[]> {
  const hashes: string[] = [];
  let prev = head;
  for (let i = 0; i < LENGTH; i++) {
    const put = await s.put({ link: i }, { queue, after: [prev.queue === queue ? prev.hash : prev] });
    expect(put.status).toBe('added');
    hashes.push(put.hash);
    prev = { queue, hash: put.hash };
  }
  return hashes;
}

/** Claims the head of `queue` and fails it for good. */
async function kill(s: Scheduler, queue: string, hash: string): Promise<void> {
  const task = await s.claim({ queue });
  expect(task?.hash).toBe(hash);
  expect(await s.fail(task!, { error: 'boom' })).toBe('dead');
}

/** A chain of `length` tasks, each after the one before, alternating between `queues`; after `head`. */
async function zigzag(s: Scheduler, queues: string[], head: { queue: string; hash: string }, length: number): Promise<Array<{ queue: string; hash: string }>> {
  const links: Array<{ queue: string; hash: string }> = [];
  let prev = head;
  for (let i = 0; i < length; i++) {
    const queue = queues[(i + 1) % queues.length];
    const put = await s.put({ link: i }, { queue, after: [prev] });
    links.push((prev = { queue, hash: put.hash }));
  }
  return links;
}

describe('a failure down a 1,000-long chain, with no worker running', () => {
  it('kills every link once the head fails, and result(wait) on the last answers dead', async () => {
    const s = await redis.scheduler();
    const queue = 'chain-fail';
    const head = await s.put('head', { queue, maxAttempts: 1 });
    const links = await chain(s, queue, { queue, hash: head.hash });
    await kill(s, queue, head.hash);
    const last = await s.result(links[LENGTH - 1], { queue, wait: 10_000 });
    expect(last).toMatchObject({ state: 'dead', error: `dependency ${queue}/${links[LENGTH - 2]} dead` });
    expect(await s.stats({ queue })).toMatchObject({ dead: LENGTH + 1, waiting: 0 });
  });

  it('has killed every link when cancel() of the head returns', async () => {
    const s = await redis.scheduler();
    const queue = 'chain-cancel';
    const head = await s.put('head', { queue, delay: 60_000 });
    await chain(s, queue, { queue, hash: head.hash });
    expect(await s.cancel(head.hash, { queue })).toBe(true);
    expect(await s.stats({ queue })).toMatchObject({ dead: LENGTH, waiting: 0 });
  });

  it('kills a chain in another queue than the head', async () => {
    const s = await redis.scheduler();
    const head = await s.put('head', { queue: 'chain-head', maxAttempts: 1 });
    const links = await chain(s, 'chain-links', { queue: 'chain-head', hash: head.hash });
    await kill(s, 'chain-head', head.hash);
    await eventually(async () => (await s.stats({ queue: 'chain-links' })).dead === LENGTH, 10_000);
    expect(await s.result(links[LENGTH - 1], { queue: 'chain-links' })).toMatchObject({ state: 'dead' });
  });

  it('kills a chain whose every link is in another queue than the one before', async () => {
    const s = await redis.scheduler();
    const queues = ['zig', 'zag', 'zog'];
    const head = await s.put('head', { queue: 'zig', maxAttempts: 1 });
    const links = await zigzag(s, queues, { queue: 'zig', hash: head.hash }, 300);
    await kill(s, 'zig', head.hash);
    const last = links[links.length - 1];
    expect(await s.result(last.hash, { queue: last.queue, wait: 10_000 })).toMatchObject({ state: 'dead' });
  });
});
