/**
 * One scenario of one library, in a process of its own, so libraries never share a heap, a
 * client or a JIT warm-up. Started by run.ts with an IPC channel: it receives a RunRequest,
 * asks the parent for a mark around its timed part, and sends back the Measure.
 */
import { LIBRARIES } from './adapters';
import type { ChildMessage, ParentMessage, RunRequest } from './protocol';
import { SCENARIOS, warmUp, type Bench } from './scenarios';

const send = (message: ChildMessage) => new Promise<void>((resolve, reject) => process.send!(message, undefined, {}, (err) => (err ? reject(err) : resolve())));

/** Marks are answered in order, one at a time: a queue of waiting resolvers is enough. */
const waiting: Array<(usedMemory: number) => void> = [];

async function run(req: RunRequest): Promise<void> {
  const adapter = await LIBRARIES[req.library]()(req.url, 'bench');
  const bench: Bench = {
    adapter,
    sizes: req.sizes,
    async mark(at) {
      const answered = new Promise<number>((resolve) => waiting.push(resolve));
      await send({ type: 'mark', at });
      return answered;
    },
  };
  await warmUp(bench);
  const measure = await SCENARIOS[req.scenario](bench);
  await adapter.close();
  await send({ type: 'result', measure });
}

process.on('message', (message: ParentMessage) => {
  if (message.type === 'marked') waiting.shift()?.(message.usedMemory);
  else if (message.type === 'run') {
    run(message).then(
      () => process.exit(0),
      async (err) => {
        await send({ type: 'error', message: String(err?.message ?? err) }).catch(() => {});
        process.stderr.write(`${err?.stack ?? err}\n`);
        process.exit(1);
      },
    );
  }
});
// Without a parent there is nothing to run; this file is not meant to be started by hand.
if (!process.send) {
  process.stderr.write('bench/child.ts is started by bench/run.ts\n');
  process.exit(2);
}
