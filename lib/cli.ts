#!/usr/bin/env node
/**
 * The `docket` command (package.json "bin"): operate queues from a shell. The work is in
 * cli/main.ts; this file only binds it to the process.
 */
import { main } from './surfaces/cli/main';

void main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin }).then((code) => {
  // exitCode, not exit(): a piped stdout is flushed before the process ends. The unref'd timer is
  // a backstop that only fires if something still holds the event loop, such as a connection
  // abandoned mid-handshake by a Redis that never answered.
  process.exitCode = code;
  setTimeout(() => process.exit(), 1000).unref();
});
