/**
 * A worker that dies between the two steps of a cross-queue release (T16): it claims one task of
 * its queue, acks it (the ack's script records the release in the queue's outbox), and SIGKILLs
 * itself as soon as the ack answers, before its carry can apply anything in the other queue.
 * Arguments: Redis URL, prefix, queue. Exits by the signal; prints why on stderr if it cannot.
 */
import { createScheduler } from '../../../lib';

async function main(): Promise<void> {
  const [url, prefix, queue] = process.argv.slice(2);
  const s = await createScheduler({ url, prefix, queue, onWarning: () => {} });
  const task = await s.claim();
  if (!task) throw new Error(`nothing to claim in ${queue}`);
  if (!(await s.ack(task))) throw new Error(`ack of ${task.hash} refused`);
  // Same tick as the ack's answer: the carry it started has at most sent its first call.
  process.kill(process.pid, 'SIGKILL');
}

main().catch((err: unknown) => {
  process.stderr.write(`ack-and-die: ${String(err)}\n`);
  process.exit(1);
});
