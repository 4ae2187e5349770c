/**
 * Runs one documentation snippet marked `runnable` (docs-examples.test.ts), transpiled to
 * CommonJS by transpileRunnable. argv: the snippet's .js file. Its `docket` import is
 * `docketForSnippets` below (a node_modules/docket next to the file points here), so the example
 * runs unchanged against the test server: createScheduler connects to DOCKET_TEST_URL under the
 * prefix DOCKET_DOCS_PREFIX whatever url or prefix the example gives (not with a `client` of its
 * own: that one it built itself, from REDIS_URL, which the test sets too). Each scheduler it
 * opens adds a line to the file DOCKET_DOCS_OPENED, so the test knows the example went through it.
 *
 * When the snippet's top-level code has settled, the child does what a process manager does at
 * shutdown: it sends SIGTERM, if the snippet listens for one. Then the process must end by itself,
 * which it does only once the snippet closed every scheduler and client it opened.
 */
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as docket from '../../lib';
import type { SchedulerOptions } from '../../lib';

export const docketForSnippets = {
  ...docket,
  async createScheduler(options: SchedulerOptions = {}) {
    const own = options.client !== undefined || options.cluster !== undefined;
    const scheduler = await docket.createScheduler({
      // The test server runs without AOF on purpose: no start-up warning about it, and no marker key.
      warnings: { aof: false },
      ...options,
      ...(own ? {} : { url: process.env.DOCKET_TEST_URL }),
      prefix: process.env.DOCKET_DOCS_PREFIX,
    });
    appendFileSync(process.env.DOCKET_DOCS_OPENED!, 'scheduler\n');
    return scheduler;
  },
};

async function main(): Promise<void> {
  const file = process.argv[2];
  const snippet = createRequire(file)(file) as { __ran: Promise<unknown> };
  await snippet.__ran;
  if (process.listenerCount('SIGTERM') > 0) process.emit('SIGTERM', 'SIGTERM');
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
