/**
 * A worker process for T19, forked by the scenario as workers.ts forks worker-child.ts (and driven
 * by the same ChildWorker: SIGKILL, close): one scheduler whose work() runs a handler module in
 * sandbox threads. The module comes by absolute path in the config, since only .ts files are
 * compiled for the children (see support/children.ts).
 */
import { createScheduler } from '../../../lib';
import type { ChildConfig, ChildReply, ChildRequest } from './workers';

/** What T19's children are started with: a lab's base config and the sandboxed work. */
export interface SandboxChildConfig extends ChildConfig {
  sandbox: {
    /** The handler module (an absolute path). */
    module: string;
    concurrency: number;
    leaseMs: number;
    /** The back-off between attempts (ms): short, so failed hostile tasks use up theirs quickly. */
    retryMs: number;
  };
}

const config = JSON.parse(process.argv[2]) as SandboxChildConfig;

async function main(): Promise<void> {
  const scheduler = await createScheduler({ url: config.url, prefix: config.prefix, queue: config.queue, onWarning: () => {} });
  const { module, concurrency, leaseMs, retryMs } = config.sandbox;
  const worker = scheduler.work(module, { sandbox: true, queue: config.queue, concurrency, lease: leaseMs, backoff: () => retryMs });
  process.on('message', (msg: ChildRequest) => {
    if (msg.type !== 'close') return;
    void (async () => {
      await worker.close();
      await scheduler.close();
      process.removeAllListeners('disconnect');
      process.send?.({ type: 'reply', id: msg.id, value: null } satisfies ChildReply, () => process.exit(0));
    })();
  });
  // The parent (the jest process) is gone: leave no orphan behind.
  process.on('disconnect', () => process.exit(1));
  process.send?.({ type: 'ready' } satisfies ChildReply);
}

main().catch((err) => {
  console.error('sandbox-child failed to start:', err);
  process.exit(1);
});
